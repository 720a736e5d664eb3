import type { ExampleSection, PlanDocument } from './model.ts';

// A plan document as one self-contained HTML page (no script, no outside resource), for reps reading it in a browser
// and for printing. Every text is escaped: plan, chip and field names come from plan files.

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const STYLE = `
body { font-family: "DejaVu Sans", system-ui, sans-serif; color: #1a1a1a; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.45; }
h1 { margin-bottom: 0.2rem; } .subtitle { color: #666; margin-top: 0; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; min-width: 60%; }
th, td { border-bottom: 1px solid #ccc; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #eee; } td.money, th.money { text-align: right; font-variant-numeric: tabular-nums; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; }
dl.facts dt { font-weight: bold; } dl.facts dd { margin: 0; }
section.chip, section.example { border-top: 1px solid #ddd; padding-top: 0.5rem; }
details { margin: 0.3rem 0 1rem; } details li { color: #333; }
`;

function table(headers: Array<{ text: string; money?: boolean }>, rows: string[][]): string {
  const head = headers
    .map((header) => `<th scope="col"${header.money ? ' class="money"' : ''}>${escapeHtml(header.text)}</th>`)
    .join('');
  const body = rows
    .map(
      (row) =>
        `<tr>${row.map((cell, index) => `<td${headers[index]?.money ? ' class="money"' : ''}>${escapeHtml(cell)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

function paragraph(text: string): string {
  return `<p>${escapeHtml(text)}</p>`;
}

function exampleHtml(example: ExampleSection): string {
  const parts = [
    `<section class="example" id="example-${escapeHtml(example.key)}">`,
    `<h3>${escapeHtml(example.title)}</h3>`,
    paragraph(`${example.description} Period ${example.period_id}.`),
    table(
      [{ text: 'Deal' }, { text: 'Closed' }, { text: 'Amount', money: true }, { text: 'Details' }],
      example.deals.map((deal) => [deal.external_id, deal.close_date, deal.amount, deal.details]),
    ),
  ];
  if (example.lines.length > 0) {
    parts.push(
      table(
        [{ text: 'Deal' }, { text: 'Chip' }, { text: 'Pays', money: true }],
        [
          ...example.lines.map((line) => [line.deal_external_id ?? 'The period', line.chip, line.amount]),
          ['Total', '', example.total],
        ],
      ),
      '<details><summary>How each amount is computed</summary><ol>',
      ...example.lines.map(
        (line) =>
          `<li><strong>${escapeHtml(`${line.deal_external_id ?? 'The period'}, ${line.chip}: ${line.amount}`)}</strong><br>${line.explanation.map(escapeHtml).join('<br>')}</li>`,
      ),
      '</ol></details>',
    );
  } else {
    parts.push(paragraph(`Nothing is paid: total ${example.total}.`));
  }
  if (example.silent_chips.length > 0) {
    parts.push(paragraph(`Pays nothing here: ${example.silent_chips.join(', ')}.`));
  }
  parts.push('</section>');
  return parts.join('\n');
}

/** The whole page. */
export function planDocumentHtml(document: PlanDocument): string {
  const chips = document.chips.map((chip) =>
    [
      `<section class="chip" id="chip-${escapeHtml(chip.key)}">`,
      `<h3>${escapeHtml(chip.name)}</h3>`,
      paragraph(chip.pays),
      paragraph(chip.applies_when === null ? 'Applies to every deal.' : `Applies when ${chip.applies_when}.`),
      chip.tier_mode === null ? '' : paragraph(chip.tier_mode),
      chip.tiers === null
        ? ''
        : table(
            [{ text: 'Band' }, { text: 'From' }, { text: 'Up to' }, { text: 'Rate', money: true }],
            chip.tiers.map((tier) => [String(tier.band), tier.from, tier.to, tier.rate]),
          ),
      ...chip.limits.map(paragraph),
      '</section>',
    ]
      .filter((part) => part !== '')
      .join('\n'),
  );
  const quota = [
    paragraph(document.quota.amount === null ? 'No quota.' : `Quota: ${document.quota.amount}.`),
    paragraph(document.quota.source),
    document.quota.ramp === null ? '' : paragraph(document.quota.ramp),
    document.quota.periods.length === 0
      ? ''
      : table(
          [{ text: 'Period' }, { text: 'Quota', money: true }, { text: 'Where it comes from' }],
          document.quota.periods.map((period) => [period.period_id, period.amount ?? 'None', period.source]),
        ),
  ].filter((part) => part !== '');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(document.title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<main>',
    `<h1>${escapeHtml(document.title)}</h1>`,
    `<p class="subtitle">${escapeHtml(document.subtitle)}</p>`,
    ...document.summary.map(paragraph),
    '<dl class="facts">',
    ...document.facts.map((fact) => `<dt>${escapeHtml(fact.label)}</dt><dd>${escapeHtml(fact.value)}</dd>`),
    '</dl>',
    '<h2>Your quota</h2>',
    ...quota,
    '<h2>What each chip pays</h2>',
    ...chips,
    ...(document.plan_limits.length > 0 ? ['<h2>Caps and draws</h2>', ...document.plan_limits.map(paragraph)] : []),
    '<h2>Split deals</h2>',
    paragraph(document.splits),
    ...(document.overrides === null ? [] : ['<h2>Overrides</h2>', paragraph(document.overrides)]),
    '<h2>Worked examples</h2>',
    paragraph('Every figure below was computed by the compensation engine for the sample deals shown.'),
    ...document.examples.map(exampleHtml),
    ...((document.terms ?? []).length > 0
      ? [
          "<h2>Your company's terms</h2>",
          ...(document.terms ?? []).flatMap((section) => [
            `<section class="terms" id="terms-${escapeHtml(section.key)}">`,
            `<h3>${escapeHtml(section.title)}</h3>`,
            ...section.paragraphs.map(paragraph),
            '</section>',
          ]),
        ]
      : []),
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
