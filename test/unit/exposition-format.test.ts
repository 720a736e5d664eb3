import assert from 'node:assert/strict';
import { Counter, Gauge, Histogram, Registry, Summary } from 'prom-client';
import { describe, test } from 'vitest';
import { expositionProblems } from '../helpers/expositionFormat.ts';

// The validator that checks /metrics (test/integration/observability.test.ts) passes a real exporter's output and
// refuses each kind of broken exposition, so a pass of /metrics means something.

const VALID = `# HELP http_requests_total Requests, by "route" \\\\ and\\n method.
# TYPE http_requests_total counter
http_requests_total{method="GET",route="/v1/\\"quoted\\"\\\\path\\n"} 3 1700000000000
http_requests_total{method="POST",} 0
# a plain comment
# TYPE temperature gauge
temperature -2.5e-3
temperature{room="b"} NaN
temperature{room="c"} -Inf

# TYPE latency_seconds histogram
latency_seconds_bucket{route="a",le="0.1"} 1
latency_seconds_bucket{route="a",le="1"} 3
latency_seconds_bucket{route="a",le="+Inf"} 4
latency_seconds_sum{route="a"} 7.5
latency_seconds_count{route="a"} 4
latency_seconds_bucket{route="b",le="+Inf"} 0
latency_seconds_sum{route="b"} 0
latency_seconds_count{route="b"} 0
# TYPE rpc_seconds summary
rpc_seconds{quantile="0.5"} 0.2
rpc_seconds{quantile="0.99"} 0.9
rpc_seconds_sum 12
rpc_seconds_count 30
`;

/** Broken expositions, each with the problem it must be refused for. */
const BROKEN: Array<[string, string, string]> = [
  ['no final newline', VALID.trimEnd(), 'does not end with a newline'],
  ['a metric name starting with a digit', '1requests 3\n', 'invalid metric name'],
  ['a metric name with a hyphen', 'http-requests 3\n', 'invalid metric name'],
  ['an unquoted label value', 'up{job=api} 1\n', 'malformed labels'],
  ['an unclosed label set', 'up{job="api" 1\n', 'malformed labels'],
  ['labels without a comma', 'up{job="api" zone="a"} 1\n', 'malformed labels'],
  ['a label name with a hyphen', 'up{job-name="api"} 1\n', 'invalid label name'],
  ['a reserved label name', 'up{__name__="up"} 1\n', 'invalid label name'],
  ['a label given twice', 'up{job="a",job="b"} 1\n', 'label job appears twice'],
  ['an invalid escape in a label value', 'up{job="a\\tb"} 1\n', 'invalid escape sequence in label job'],
  ['an invalid escape in HELP', '# HELP up Is it up\\t?\nup 1\n', 'invalid escape sequence in the HELP'],
  ['a value that is no number', 'up one\n', 'invalid value'],
  ['a sample without a value', 'up{job="a"}\n', 'invalid value'],
  ['a fractional timestamp', 'up 1 17.5\n', 'invalid timestamp'],
  ['an unknown type', '# TYPE up boolean\nup 1\n', 'unknown type'],
  ['a second TYPE', '# TYPE up gauge\n# TYPE up gauge\nup 1\n', 'a second TYPE for up'],
  ['a second HELP', '# HELP up a\n# HELP up b\nup 1\n', 'a second HELP for up'],
  ['a TYPE after the samples', 'up 1\n# TYPE up gauge\n', 'the TYPE of up comes after its samples'],
  ['a family split in two', 'up 1\ndown 0\nup{job="b"} 1\n', 'the lines of up are not contiguous'],
  ['a repeated series', 'up{job="a"} 1\nup{job="a"} 0\n', 'a repeated series'],
  ['a negative counter', '# TYPE hits_total counter\nhits_total -1\n', 'counter hits_total has the value -1'],
];

/** Histograms and summaries broken by one edit of VALID: what is replaced, by what, and the problem. */
const BROKEN_EDITS: Array<[string, string, string, string]> = [
  ['histogram buckets out of order', 'le="0.1"', 'le="5"', 'the buckets of latency_seconds do not rise in le'],
  ['histogram counts that fall', 'le="1"} 3', 'le="1"} 0', 'the bucket counts of latency_seconds fall'],
  ['a histogram without +Inf', 'le="+Inf"} 4\n', 'le="2"} 4\n', 'has no +Inf bucket'],
  ['a +Inf bucket that is not _count', '{route="a"} 4', '{route="a"} 5', 'the +Inf bucket (4) is not _count (5)'],
  ['a histogram without _sum', 'latency_seconds_sum{route="b"} 0\n', '', 'has no _sum'],
  ['a histogram without _count', 'latency_seconds_count{route="b"} 0\n', '', 'has no _count'],
  ['a bucket without le', '{route="a",le="0.1"}', '{route="a"}', 'without a numeric le'],
  ['a bare sample in a histogram', 'latency_seconds_sum{route="b"} 0\n', 'latency_seconds 1\n', 'is not a series'],
  ['a quantile above 1', 'quantile="0.99"', 'quantile="1.5"', 'a quantile of rpc_seconds outside [0, 1]'],
  ['a summary without _count', 'rpc_seconds_count 30\n', '', 'summary rpc_seconds[] has no _count'],
];

function assertRefused(text: string, problem: string): void {
  const problems = expositionProblems(text);
  assert.ok(
    problems.some((found) => found.includes(problem)),
    `expected "${problem}" among ${JSON.stringify(problems)}`,
  );
}

describe('the exposition-format validator', () => {
  test('accepts a valid exposition of every type, with escapes, comments, blank lines and timestamps', () => {
    assert.deepEqual(expositionProblems(VALID), []);
  });

  test("accepts prom-client's exposition of every metric type, with escaped label values", async () => {
    const registry = new Registry();
    const registers = [registry];
    const counter = new Counter({
      name: 'c_total',
      help: 'A "counter"\\ with\nlines',
      labelNames: ['path'],
      registers,
    });
    counter.inc({ path: 'a"b\\c\nd' }, 2);
    new Gauge({ name: 'g', help: 'A gauge', registers }).set(-1.5);
    const histogram = new Histogram({ name: 'h_seconds', help: 'A histogram', labelNames: ['route'], registers });
    histogram.observe({ route: 'x' }, 0.3);
    histogram.observe({ route: 'y' }, 12);
    const summary = new Summary({ name: 's_seconds', help: 'A summary', registers });
    summary.observe(1);
    assert.deepEqual(expositionProblems(await registry.metrics()), []);
  });

  test.each(BROKEN)('refuses %s', (_what, text, problem) => assertRefused(text, problem));

  test.each(BROKEN_EDITS)('refuses %s', (_what, from, to, problem) => {
    const text = VALID.replace(from, to);
    assert.notEqual(text, VALID, `VALID contains ${JSON.stringify(from)}`);
    assertRefused(text, problem);
  });
});
