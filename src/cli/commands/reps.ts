import { Command } from 'commander';
import { signInLinkUrl } from '../../http/portal/paths.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure } from '../output.ts';

export function repsCommand(): Command {
  const reps = new Command('reps').description("reps' access to the rep portal: sign-in links and invitations");
  reps
    .command('sign-in-link')
    .description('create a link that signs the rep in to the portal once, for a short time; it is printed once')
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--rep <rep>', "the rep's id (user_…) or external id")
    .option('--expires-in <minutes>', 'how long the link works, 5 to 10080 minutes', '60')
    .option('--base-url <url>', "Quotient's public origin, as reps reach it (default: http://localhost:PORT)")
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; rep: string; expiresIn: string; baseUrl?: string; json?: boolean }) => {
      try {
        const { link, origin } = await withAdminServices(async (services, config) => ({
          link: await services.portalAccess.createSignInLink({
            orgId: options.org,
            rep: options.rep,
            expiresInMinutes: Number(options.expiresIn),
          }),
          origin: (options.baseUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, ''),
        }));
        const url = signInLinkUrl(origin, link.token);
        print(options, { rep_id: link.repId, url, expires_at: link.expiresAt.toISOString() }, () =>
          [
            `A sign-in link for rep ${link.repId}, usable once until ${link.expiresAt.toISOString()}:`,
            '',
            `  ${url}`,
            '',
            'This is the only time the link is shown. Hand it to the rep through a safe channel.',
          ].join('\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  reps
    .command('invite')
    .description("link an email to a rep: whoever signs in with it through the org's identity provider is that rep")
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--rep <rep>', "the rep's id (user_…) or external id")
    .requiredOption('--email <email>', 'the email')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; rep: string; email: string; json?: boolean }) => {
      try {
        const invited = await withAdminServices((services) =>
          services.portalAccess.inviteEmail(options.org, options.rep, options.email),
        );
        print(
          options,
          { rep_id: invited.repId, email: invited.email },
          () => `Invited ${invited.email} as rep ${invited.repId}`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  return reps;
}
