import { parse } from 'yaml';
import type { operations } from '../../../../generated/openapi-admin.ts';
import { BUILT_IN_MAPPINGS, type Mapping, parseMapping } from '../../../domain/imports/mapping.ts';
import { Refusal } from '../../../domain/refusal.ts';
import type { DealImport } from '../../../services/dealImport.ts';
import { bytesInMemory, type OptionName, readExportBytes } from '../../../services/exportFile.ts';
import { loadContract } from '../../contract.ts';
import { DealEventCheck } from '../../dealEventCheck.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

type ImportRequest = operations['importDeals']['requestBody']['content']['application/json'];

/** A refusal names the request's fields, where the CLI names its options. */
const FIELD_NAMES: OptionName = (option) => option;

/**
 * POST /admin/v1/deal-imports: a CRM export uploaded by the console, imported as `quotient import deals` imports a
 * file (the same readers, mappings, checks, choices and service), into the signed-in admin's org.
 */
export function importHandlers(dealImport: DealImport): Pick<AdminHandlers, 'importDeals'> {
  const check = new DealEventCheck(loadContract());
  const outcome = (body: Parameters<DealEventCheck['outcome']>[0]) => check.outcome(body);
  return {
    importDeals: async (req, res) => {
      const { session, actor } = adminContext(res);
      const body = req.body;
      const chosen = chosenMapping(body);
      const read = await readExportBytes(
        bytesInMemory(fileBytes(body)),
        outcome,
        chosen,
        {
          fallbackCurrency: await dealImport.defaultCurrencyOf(session.org_id),
          ...(body.locale === undefined ? {} : { locale: body.locale }),
          ...(body.currency === undefined ? {} : { currency: body.currency }),
          ...(body.encoding === undefined ? {} : { encoding: body.encoding }),
        },
        FIELD_NAMES,
      );
      const summary = await dealImport.run({
        orgId: session.org_id,
        rows: read.rows,
        dryRun: body.dry_run === true,
        source: body.file_name || 'the uploaded file',
        actor,
        missing: body.missing === 'delete' ? { mode: 'delete', check: outcome } : { mode: 'report' },
      });
      res.status(200).json({ ...summary, mapping: read.mapping.name, file: read.file });
    },
  };
}

/** The file's bytes: `text` as UTF-8, or `file_base64` decoded (strictly: a typo is refused, not skipped). */
function fileBytes(body: ImportRequest): Uint8Array {
  if ((body.text === undefined) === (body.file_base64 === undefined)) {
    throw new Refusal('invalid_body', 'give the file as exactly one of text (a CSV text) and file_base64 (its bytes)');
  }
  if (body.text !== undefined) {
    if (body.encoding !== undefined) {
      throw new Refusal(
        'invalid_body',
        'encoding: text is already text; give the bytes as file_base64 to name their encoding',
      );
    }
    return new TextEncoder().encode(body.text);
  }
  const base64 = (body.file_base64 ?? '').replace(/\s+/g, '');
  if (base64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) {
    throw new Refusal('invalid_body', 'file_base64: not base64');
  }
  return Buffer.from(base64, 'base64');
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
