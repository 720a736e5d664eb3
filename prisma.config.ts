import { defineConfig } from 'prisma/config';

// The Prisma CLI is used only for `prisma generate` and `prisma format`; migrations are created, checked
// and applied by scripts/prisma-engine.ts and src/db/migrate.ts, which need no downloaded engine.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
