import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { describeError, type ErrorDocument, type Schemas } from './api.ts';
import { Notice } from './components.tsx';

// The form that applies a file (a plan file, the accounting policy) exactly as the server reads it: chosen from
// disk or pasted, sent as text, and every problem the server finds shown by path and line; nothing is applied then.

export type FileFormat = 'yaml' | 'json';

/** What the server answered: what to tell on success, or the refusal. */
export type ApplyAnswer = { applied: ComponentChildren } | { error: ErrorDocument | undefined };

export function ApplyFileForm(props: {
  /** Prefixes the form's element ids: `${id}-file`, `${id}-text`, `${id}-problems`. */
  id: string;
  title: string;
  /** The accessible name of the text area. */
  label: string;
  placeholder: string;
  apply: (file: { text: string; format: FileFormat; file_name?: string }) => Promise<ApplyAnswer>;
}) {
  const [text, setText] = useState('');
  const [fileName, setFileName] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<{ reason: string; list: Schemas['PlanFileProblem'][] } | undefined>();
  const [applied, setApplied] = useState<ComponentChildren | undefined>();
  const [error, setError] = useState<string | undefined>();

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblems(undefined);
    setApplied(undefined);
    setError(undefined);
    const format = fileName?.toLowerCase().endsWith('.json') ? 'json' : 'yaml';
    const answer = await props.apply({ text, format, ...(fileName ? { file_name: fileName } : {}) });
    setBusy(false);
    if ('applied' in answer) setApplied(answer.applied);
    else if (answer.error?.error === 'invalid_plan_file') {
      setProblems({ reason: answer.error.reason ?? 'The file has problems.', list: answer.error.problems ?? [] });
    } else setError(describeError(answer.error));
  };

  return (
    <form class="card apply" onSubmit={submit} aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      <div class="apply-source">
        <label class="button" for={`${props.id}-file`}>
          Choose file…
        </label>
        <input
          id={`${props.id}-file`}
          class="visually-hidden"
          type="file"
          accept=".yaml,.yml,.json"
          onChange={async (event) => {
            const file = event.currentTarget.files?.[0];
            if (!file) return;
            setFileName(file.name);
            setText(await file.text());
          }}
        />
        <span class="muted">{fileName ?? 'or paste the file below'}</span>
      </div>
      <label class="visually-hidden" for={`${props.id}-text`}>
        {props.label}
      </label>
      <textarea
        id={`${props.id}-text`}
        class="code-input"
        rows={10}
        spellcheck={false}
        placeholder={props.placeholder}
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
        aria-invalid={problems ? 'true' : undefined}
        aria-describedby={problems ? `${props.id}-problems` : undefined}
      />
      {problems ? (
        <div class="notice notice-error" role="alert" id={`${props.id}-problems`}>
          <strong>{problems.reason}</strong>
          <ul class="problems">
            {problems.list.map((problem) => (
              <li key={`${problem.path}:${problem.message}`}>
                <code>{problem.path || '(file)'}</code>
                {problem.line ? <span class="muted"> line {problem.line}</span> : null}: {problem.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      {applied ? <Notice kind="success">{applied}</Notice> : null}
      <div class="form-actions">
        <button type="submit" class="button button-primary" disabled={busy || text.trim() === ''}>
          {busy ? 'Applying…' : 'Apply file'}
        </button>
      </div>
    </form>
  );
}
