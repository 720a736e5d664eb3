import { Command } from 'commander';
import { signInLinkUrl } from '../../http/portal/paths.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure } from '../output.ts';

export function repsCommand(): Command {
  const reps = new Command('reps').description(
    "reps' display names and their access to the rep portal: sign-in links and invitations",
  );
  reps
    .command('set-name')
    .description(
      'the rep is called <name> from now on: the name they type to accept a plan and the portal greets them by. A name ' +
        "set here is never overwritten by the rep's sign-in through an identity provider; --clear removes it (the " +
        "external id stands in, and the next sign-in may bring the provider's name). Audited when it changes.",
    )
    .argument('<rep>', "the rep's external id (owner_external_id) or id (user_…)")
    .argument('[name]', 'the name, e.g. "Dana Reyes"; leave out with --clear')
    .requiredOption('--org <org_id>', 'the org')
    .option('--clear', 'the rep has no display name')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async function (
      this: Command,
      rep: string,
      name: string | undefined,
      options: { org: string; clear?: boolean; json?: boolean },
    ) {
      if ((name === undefined) === (options.clear !== true)) this.error('error: give either <name> or --clear');
      try {
        const result = await withAdminServices(async (services) => {
          const found = await services.reps.findByIdOrExternalId(options.org, rep);
          return services.repNames.setByAdmin({ orgId: options.org, userId: found.id, name: name ?? null });
        });
        const answer = {
          rep_id: result.user_id,
          rep_external_id: result.external_id,
          display_name: result.display_name,
          display_name_source: result.display_name_source,
          changed: result.changed,
        };
        print(options, answer, () => {
          const called =
            result.display_name === null ? 'has no display name' : `is called ${JSON.stringify(result.display_name)}`;
          return `${result.external_id} ${called}${result.changed ? '' : ' already; nothing changed'}`;
        });
      } catch (error) {
        printFailure(options, error);
      }
    });
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
