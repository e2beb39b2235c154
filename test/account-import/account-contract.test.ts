// The account against the published contract (../shared/reference/raw, EDF GB variant: UK meter points):
// every field its EnergyAccount names is either taken or refused as field_not_supported, and the
// contract's own account example validates but for the fields listed in docs/account-import.md.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { PART_SHAPES } from '../../shared/account-import/account-import.schemas';
import { EnergyAccountSchema } from '../../shared/account-import/energy-account';
import { issueToFieldError } from '../../shared/platform/validation';
import { referenceDir } from '../openapi/published-contract';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// YAML 1.1, as the contract's own tooling writes it: unquoted 07123456789 and 0393 stay strings.
const doc = parse(readFileSync(path.join(referenceDir(), 'edf-energy-kraken-data-import-openapi.yml'), 'utf8'), {
  version: '1.1',
  maxAliasCount: 10_000,
}) as Json;
const schemas = doc.components.schemas as Json;

/** A schema with its $ref and one-item allOf followed. */
function resolve(s: Json): Json {
  let out = s;
  for (let i = 0; i < 10; i++) {
    if (out.$ref) out = schemas[String(out.$ref).split('/').pop()!];
    else if (out.allOf?.length === 1) out = { ...resolve(out.allOf[0]), ...out, allOf: undefined };
    else return out;
  }
  return out;
}
const propertiesOf = (s: Json) => Object.keys(resolve(s).properties ?? {});
const itemsOf = (s: Json, name: string) => resolve(resolve(s).properties[name]).items;

const account = schemas.EnergyAccount;
const address = itemsOf(account, 'supply_addresses');
const elec = schemas.ElectricityMeterPoint;
const gas = schemas.GasMeterPoint;
const CONTRACT_PARTS: Record<keyof typeof PART_SHAPES, Json> = {
  EnergyAccount: account,
  Customer: itemsOf(account, 'customers'),
  SupplyAddress: address,
  ElectricityMeterPoint: elec,
  GasMeterPoint: gas,
  ElectricityMeter: itemsOf(elec, 'meters'),
  GasMeter: itemsOf(gas, 'meters'),
  Agreement: itemsOf(elec, 'agreements'),
};

/**
 * The example's fields this service refuses as field_not_supported (docs/account-import.md, "Differences
 * from the published contract").
 */
const EXAMPLE_NOT_SUPPORTED = [
  'supply_addresses.0.meter_points.0.et_in_progress',
  'supply_addresses.0.meter_points.0.dr_in_progress',
  'supply_addresses.0.meter_points.0.smart_refusal_interest',
  'supply_addresses.0.meter_points.0.eac_history',
  'supply_addresses.0.meter_points.1.meters.0.smart_type',
  'supply_addresses.0.meter_points.1.meters.0.is_prepay',
  'supply_addresses.0.meter_points.1.meters.0.prepay_details',
  'supply_addresses.0.meter_points.1.et_in_progress',
  'supply_addresses.0.meter_points.1.dr_in_progress',
  'supply_addresses.0.meter_points.1.aq_history',
  'supply_addresses.0.property_administrators',
  'references',
  'warm_home_discount',
  'dunning_path',
  'debts',
  'last_payment_review_date',
  'smart_read_frequency',
  'smart_read_cycle_day',
  'account_campaigns',
];

/**
 * The example's other differences (docs/account-import.md): two unquoted values a YAML reader takes as
 * numbers (`mobile: 07123456789`, `ssc: 0393`), which this service takes as text only, and document
 * paths written from the root ("/notes/…"), which every endpoint of this service refuses: paths are
 * relative to the supplier's document root.
 */
const EXAMPLE_OTHER_DIFFERENCES = [
  { attr: 'customers.0.mobile', code: 'invalid' },
  { attr: 'supply_addresses.0.meter_points.0.ssc', code: 'invalid' },
  { attr: 'notes.0.document_paths.0.document_path', code: 'invalid_document_path' },
  { attr: 'statements.0.statement_path', code: 'invalid_document_path' },
  { attr: 'statements.1.statement_path', code: 'invalid_document_path' },
];

/** The example with those values as this service takes them. */
function adapted(example: Json): Json {
  const a = without(example, EXAMPLE_NOT_SUPPORTED);
  a.customers[0].mobile = '07123456789';
  a.supply_addresses[0].meter_points[0].ssc = '0393';
  a.notes[0].document_paths[0].document_path = String(a.notes[0].document_paths[0].document_path).slice(1);
  for (const st of a.statements) st.statement_path = String(st.statement_path).slice(1);
  return a;
}

function errorsOf(body: unknown) {
  const result = EnergyAccountSchema.safeParse(body, { reportInput: true });
  return result.success ? [] : result.error.issues.map(issueToFieldError).map(({ attr, code }) => ({ attr, code }));
}

function without(body: Json, attrs: string[]): Json {
  const copy = structuredClone(body);
  for (const attr of attrs) {
    const keys = attr.split('.');
    const last = keys.pop()!;
    delete keys.reduce((o: Json, k) => o[k], copy)[last];
  }
  return copy;
}

describe('the account against the published contract', () => {
  it.each(Object.keys(PART_SHAPES) as (keyof typeof PART_SHAPES)[])(
    "names every field of the contract's %s (taken or field_not_supported)",
    (part) => {
      const ours = Object.keys(PART_SHAPES[part]);
      const missing = propertiesOf(CONTRACT_PARTS[part]).filter((name) => !ours.includes(name));
      expect(missing).toEqual([]);
    },
  );

  const examples = [
    ['V2 Validate Account', doc.paths['/v2/data-import/accounts/validate/'].post],
    ['V2 Schedule Account Creation', doc.paths['/v2/data-import/accounts/'].post],
  ] as const;

  it.each(examples)('validates the account example of %s but for the documented fields', (_name, op: Json) => {
    const example = op.requestBody.content['application/json'].examples.ExamplePayload.value as Json;
    const errors = errorsOf(example);
    expect(errors.filter((e) => e.code !== 'field_not_supported')).toEqual(EXAMPLE_OTHER_DIFFERENCES);
    const unsupported = errors.filter((e) => e.code === 'field_not_supported').map((e) => e.attr);
    expect(unsupported.sort()).toEqual([...EXAMPLE_NOT_SUPPORTED].sort());
    // Adapted, every rule and cross-check passes.
    expect(errorsOf(adapted(example))).toEqual([]);
  });
});
