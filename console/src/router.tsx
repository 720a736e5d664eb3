import { pathRouter } from '../../ui/router.tsx';

// The console's pages live at /admin/<page>.
export const { currentPath, navigate, usePath, Link } = pathRouter('/admin');
