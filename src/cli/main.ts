import { buildProgram } from './program.ts';

// The `quotient` command: see program.ts for the command tree.
await buildProgram(process.argv).parseAsync(process.argv);
