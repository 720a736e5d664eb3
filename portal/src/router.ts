import { pathRouter } from '../../ui/router.tsx';

// The portal's pages live at /portal/<page>.
export const { currentPath, navigate, usePath, Link } = pathRouter('/portal');
