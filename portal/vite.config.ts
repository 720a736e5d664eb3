import { browserAppConfig } from '../ui/viteApp.ts';

// The rep portal: built into portal/dist and served by `quotient serve` at /portal (src/http/portal/app.ts), with the
// console's toolchain, stylesheet and shared components (ui/).
export default browserAppConfig(import.meta.dirname, '/portal/');
