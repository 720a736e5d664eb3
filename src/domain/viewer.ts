// Who reads through /v1 (docs/rep-tokens.md): an API key sees its whole org; a rep token's rep sees themself and,
// transitively, the reps who report to them (read-only). Every reader of the public API takes a Viewer and hands
// its visible user ids to the repositories, which filter by them: one enforcement point, not a check per handler.
// Pure: no HTTP, no database.

export type Viewer =
  | { kind: 'org'; orgId: string }
  | {
      kind: 'rep';
      orgId: string;
      /** The rep the token is bound to. */
      userId: string;
      tokenId: string;
      /** The rep and their reports, transitively, today. Never empty: the rep is always in it. */
      visibleUserIds: readonly string[];
    };

export function orgViewer(orgId: string): Viewer {
  return { kind: 'org', orgId };
}

/** The user ids the viewer may see; null for the whole org. */
export function visibleUserIdsOf(viewer: Viewer): readonly string[] | null {
  return viewer.kind === 'org' ? null : viewer.visibleUserIds;
}

/** Whether the viewer may see what belongs to this user. */
export function canSeeUser(viewer: Viewer, userId: string | null | undefined): boolean {
  if (viewer.kind === 'org') return true;
  return typeof userId === 'string' && viewer.visibleUserIds.includes(userId);
}
