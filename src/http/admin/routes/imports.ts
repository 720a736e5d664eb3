import { parse } from 'yaml';
import type { operations } from '../../../../generated/openapi-admin.ts';
import { BUILT_IN_MAPPINGS, type Mapping, parseMapping } from '../../../domain/imports/mapping.ts';
import { csvSource, readExport } from '../../../domain/imports/rows.ts';
import { delimiterName, sniffDelimiter } from '../../../domain/imports/text.ts';
import { Refusal } from '../../../domain/refusal.ts';
import type { DealImport } from '../../../services/dealImport.ts';
import { loadContract } from '../../contract.ts';
import { DealEventCheck } from '../../dealEventCheck.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

type ImportRequest = operations['importDeals']['requestBody']['content']['application/json'];

/**
 * POST /admin/v1/deal-imports: a CRM export uploaded by the console, imported as `quotient import deals` imports a
 * file (the same mappings, checks and service), into the signed-in admin's org.
 */
export function importHandlers(dealImport: DealImport): Pick<AdminHandlers, 'importDeals'> {
  const check = new DealEventCheck(loadContract());
  return {
    importDeals: async (req, res) => {
      const { session, actor } = adminContext(res);
      const body = req.body;
      const chosen = chosenMapping(body);
      const text = body.text.startsWith('\ufeff') ? body.text.slice(1) : body.text;
      const delimiter = sniffDelimiter(text.slice(0, 64 * 1024));
      const { survey, rows } = await readExport(
        csvSource(async function* () {
          yield text;
        }, delimiter),
        {
          fallbackCurrency: await dealImport.defaultCurrencyOf(session.org_id),
          format: `CSV separated by ${delimiterName(delimiter)}`,
          ...(chosen ? { mapping: chosen } : {}),
        },
        (event) => check.outcome(event),
      );
      const summary = await dealImport.run({
        orgId: session.org_id,
        rows,
        dryRun: body.dry_run === true,
        source: body.file_name || 'the uploaded file',
        actor,
      });
      res.status(200).json({ ...summary, mapping: survey.mapping.name });
    },
  };
}

function chosenMapping(body: ImportRequest): Mapping | undefined {
  if (body.mapping_file !== undefined) {
    let document: unknown;
    try {
      document = parse(body.mapping_file);
    } catch (error) {
      throw new Refusal('invalid_body', `mapping_file: not YAML (${(error as Error).message})`);
    }
    return parseMapping(document, 'the mapping file');
  }
  return body.mapping === undefined || body.mapping === 'auto' ? undefined : BUILT_IN_MAPPINGS[body.mapping];
}
