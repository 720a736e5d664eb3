import { browserAppConfig } from '../ui/viteApp.ts';

// The admin console: built into console/dist and served by `quotient serve` at /admin (src/http/admin/console.ts).
export default browserAppConfig(import.meta.dirname, '/admin/');
