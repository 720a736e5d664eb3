// A validator of Prometheus's text exposition format (version 0.0.4), the format /metrics serves: what a Prometheus
// server's scrape parser refuses, and the consistency its queries rely on. It stands in for `promtool check metrics`,
// which is not an npm package, and is itself tested on broken expositions (test/unit/exposition-format.test.ts).
//
// Checked: every line is a HELP, TYPE or comment line, a blank line, or a sample; metric and label names and label
// values are well formed, a label appears once per sample, values are floats (NaN and ±Inf included) and timestamps
// integers; HELP and TYPE come at most once per family, before its samples, with a known type; a family's lines are
// contiguous and no series is repeated; a histogram has only _bucket, _sum and _count series, each label set with
// buckets in rising `le` order, cumulative counts that never fall, a +Inf bucket equal to _count, and a _sum; a
// summary has quantiles in [0, 1] besides its _sum and _count; counters are not negative. The text ends with a newline.

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|Inf|NaN)$/;
const TIMESTAMP = /^-?\d+$/;

interface Sample {
  line: number;
  name: string;
  labels: Map<string, string>;
  value: number;
}

interface Family {
  name: string;
  type: string;
  helpSeen: boolean;
  typeSeen: boolean;
  samples: Sample[];
}

/** The problems found in an exposition, each as "line N: what is wrong"; none means the text is valid. */
export function expositionProblems(text: string): string[] {
  const problems: string[] = [];
  const problem = (line: number, message: string) => problems.push(`line ${line}: ${message}`);
  if (text !== '' && !text.endsWith('\n'))
    problem(text.split('\n').length, 'the exposition does not end with a newline');

  const families = new Map<string, Family>();
  let current: Family | undefined;
  const familyFor = (name: string, line: number): Family => {
    if (current?.name === name) return current;
    const seen = families.get(name);
    if (seen) problem(line, `the lines of ${name} are not contiguous`);
    current = seen ?? { name, type: 'untyped', helpSeen: false, typeSeen: false, samples: [] };
    families.set(name, current);
    return current;
  };

  const readMetadata = ([, keyword, name = '', rest = '']: RegExpExecArray, line: number) => {
    if (!METRIC_NAME.test(name)) return problem(line, `invalid metric name ${JSON.stringify(name)} in ${keyword}`);
    const family = familyFor(name, line);
    if (keyword === 'HELP') {
      if (family.helpSeen) problem(line, `a second HELP for ${name}`);
      family.helpSeen = true;
      if (/\\(?!n)/.test(rest.replace(/\\\\/g, ''))) problem(line, `invalid escape sequence in the HELP of ${name}`);
      return;
    }
    if (family.typeSeen) problem(line, `a second TYPE for ${name}`);
    if (family.samples.length > 0) problem(line, `the TYPE of ${name} comes after its samples`);
    if (!TYPES.has(rest.trim())) problem(line, `unknown type ${JSON.stringify(rest)} for ${name}`);
    family.typeSeen = true;
    family.type = rest.trim();
  };

  for (const [index, raw] of text.split('\n').entries()) {
    const line = index + 1;
    if (raw.trim() === '') continue;
    if (raw.startsWith('#')) {
      const meta = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(raw);
      if (meta) readMetadata(meta, line);
      continue;
    }
    const sample = parseSample(raw, line, problem);
    if (sample) familyFor(familyOf(sample.name, current, families), line).samples.push(sample);
  }

  for (const family of families.values()) checkFamily(family, problem);
  return problems;
}

/** The family a sample belongs to: the current family when the name is one of its series, else its own name. */
function familyOf(name: string, current: Family | undefined, families: Map<string, Family>): string {
  for (const family of [current, ...families.values()]) {
    if (!family) continue;
    const series =
      family.type === 'histogram'
        ? ['_bucket', '_sum', '_count'].map((suffix) => family.name + suffix)
        : family.type === 'summary'
          ? [family.name, `${family.name}_sum`, `${family.name}_count`]
          : [family.name];
    if (series.includes(name)) return family.name;
  }
  return name;
}

function parseSample(raw: string, line: number, problem: (line: number, message: string) => void): Sample | undefined {
  const head = /^([^\s{]+)[ \t]*/.exec(raw);
  const name = head?.[1] ?? '';
  if (!METRIC_NAME.test(name)) return void problem(line, `invalid metric name ${JSON.stringify(name)}`);
  let rest = raw.slice(head?.[0].length ?? 0);
  const labels = new Map<string, string>();
  if (rest.startsWith('{')) {
    rest = rest.slice(1);
    for (;;) {
      rest = rest.replace(/^[ \t]*/, '');
      if (rest.startsWith('}')) break;
      const pair = /^([^\s="]*)[ \t]*=[ \t]*"((?:[^"\\\n]|\\.)*)"[ \t]*(,?)/.exec(rest);
      if (!pair) return void problem(line, `malformed labels in ${JSON.stringify(raw)}`);
      const [whole, labelName = '', escaped = '', comma] = pair;
      if (!LABEL_NAME.test(labelName) || labelName.startsWith('__')) {
        return void problem(line, `invalid label name ${JSON.stringify(labelName)}`);
      }
      if (/\\[^n"]/.test(escaped.replace(/\\\\/g, ''))) {
        return void problem(line, `invalid escape sequence in label ${labelName}`);
      }
      if (labels.has(labelName)) return void problem(line, `label ${labelName} appears twice`);
      labels.set(
        labelName,
        escaped.replace(/\\(.)/g, (_, char: string) => (char === 'n' ? '\n' : char)),
      );
      rest = rest.slice(whole.length);
      if (!comma && !rest.startsWith('}')) return void problem(line, `malformed labels in ${JSON.stringify(raw)}`);
    }
    rest = rest.slice(1);
  }
  const fields = rest.trim().split(/[ \t]+/);
  const [value = '', timestamp] = fields;
  if (fields.length > 2 || !FLOAT.test(value)) return void problem(line, `invalid value in ${JSON.stringify(raw)}`);
  if (timestamp !== undefined && !TIMESTAMP.test(timestamp)) {
    return void problem(line, `invalid timestamp in ${JSON.stringify(raw)}`);
  }
  return { line, name, labels, value: parseFloatValue(value) };
}

function parseFloatValue(text: string): number {
  if (/^[+-]?Inf$/.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  return text.endsWith('NaN') ? Number.NaN : Number(text);
}

/** The label set of a sample without one label, as a comparable key. */
function seriesKey(labels: Map<string, string>, without?: string): string {
  return JSON.stringify([...labels].filter(([name]) => name !== without).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function checkFamily(family: Family, problem: (line: number, message: string) => void): void {
  const seen = new Set<string>();
  for (const sample of family.samples) {
    const key = sample.name + seriesKey(sample.labels);
    if (seen.has(key)) problem(sample.line, `a repeated series ${sample.name}${seriesKey(sample.labels)}`);
    seen.add(key);
  }
  if (family.type === 'counter') {
    for (const sample of family.samples) {
      if (!(sample.value >= 0)) problem(sample.line, `counter ${family.name} has the value ${sample.value}`);
    }
  }
  if (family.type === 'histogram') checkHistogram(family, problem);
  if (family.type === 'summary') checkSummary(family, problem);
}

function checkHistogram(family: Family, problem: (line: number, message: string) => void): void {
  const groups = new Map<string, { line: number; buckets: Array<[number, number]>; sum?: number; count?: number }>();
  for (const sample of family.samples) {
    if (sample.name === family.name) {
      problem(sample.line, `${sample.name} is not a series of histogram ${family.name}`);
      continue;
    }
    const key = seriesKey(sample.labels, 'le');
    const group = groups.get(key) ?? { line: sample.line, buckets: [] };
    groups.set(key, group);
    if (sample.name === `${family.name}_bucket`) {
      const le = sample.labels.get('le');
      if (le === undefined || !FLOAT.test(le)) {
        problem(sample.line, `a bucket of ${family.name} without a numeric le`);
        continue;
      }
      const bound = parseFloatValue(le);
      const previous = group.buckets.at(-1);
      if (previous && bound <= previous[0]) problem(sample.line, `the buckets of ${family.name} do not rise in le`);
      if (previous && sample.value < previous[1]) problem(sample.line, `the bucket counts of ${family.name} fall`);
      group.buckets.push([bound, sample.value]);
    } else if (sample.labels.has('le')) {
      problem(sample.line, `${sample.name} carries the bucket label le`);
    } else if (sample.name === `${family.name}_sum`) {
      group.sum = sample.value;
    } else {
      group.count = sample.value;
    }
  }
  for (const [key, group] of groups) {
    const inf = group.buckets.find(([bound]) => bound === Infinity);
    if (!inf) problem(group.line, `histogram ${family.name}${key} has no +Inf bucket`);
    if (group.count === undefined) problem(group.line, `histogram ${family.name}${key} has no _count`);
    if (group.sum === undefined) problem(group.line, `histogram ${family.name}${key} has no _sum`);
    if (inf && group.count !== undefined && inf[1] !== group.count) {
      problem(group.line, `histogram ${family.name}${key}: the +Inf bucket (${inf[1]}) is not _count (${group.count})`);
    }
  }
}

function checkSummary(family: Family, problem: (line: number, message: string) => void): void {
  const groups = new Map<string, { line: number; sum: boolean; count: boolean }>();
  for (const sample of family.samples) {
    const key = seriesKey(sample.labels, 'quantile');
    const group = groups.get(key) ?? { line: sample.line, sum: false, count: false };
    groups.set(key, group);
    if (sample.name === family.name) {
      const quantile = sample.labels.get('quantile');
      const q = quantile !== undefined && FLOAT.test(quantile) ? parseFloatValue(quantile) : Number.NaN;
      if (!(q >= 0 && q <= 1)) problem(sample.line, `a quantile of ${family.name} outside [0, 1]`);
    } else if (sample.labels.has('quantile')) {
      problem(sample.line, `${sample.name} carries the quantile label`);
    } else if (sample.name === `${family.name}_sum`) {
      group.sum = true;
    } else {
      group.count = true;
    }
  }
  for (const [key, group] of groups) {
    if (!group.count) problem(group.line, `summary ${family.name}${key} has no _count`);
    if (!group.sum) problem(group.line, `summary ${family.name}${key} has no _sum`);
  }
}
