import type { CalendarDate } from '../periods.ts';
import { dealDate } from './assignments.ts';
import type { DealSnapshot } from './types.ts';

// The rep hierarchy that manager overrides read (docs/plan-features.md): who a rep's manager is from which day. Admins
// keep it effective-dated, so a change from a day on leaves the days before it as they were. Pure: the caller loads the
// org's entries; overrides read the hierarchy in effect on the deal's date (hierarchyDayOf).

/** From `from` on (until the rep's next entry), the rep's manager is `manager_external_id`; null: none. */
export interface ManagerEntry {
  rep_external_id: string;
  manager_external_id: string | null;
  from: CalendarDate;
}

/** The entries indexed by rep, each rep's sorted by day. */
export interface RepHierarchy {
  byRep: ReadonlyMap<string, readonly ManagerEntry[]>;
}

export const EMPTY_HIERARCHY: RepHierarchy = { byRep: new Map() };

export function repHierarchyOf(entries: readonly ManagerEntry[]): RepHierarchy {
  const byRep = new Map<string, ManagerEntry[]>();
  for (const entry of entries) byRep.set(entry.rep_external_id, [...(byRep.get(entry.rep_external_id) ?? []), entry]);
  for (const list of byRep.values()) list.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  return { byRep };
}

/** The rep's manager on the day; null when the rep has none then. */
export function managerOn(hierarchy: RepHierarchy, rep: string, day: CalendarDate): string | null {
  let manager: string | null = null;
  for (const entry of hierarchy.byRep.get(rep) ?? []) {
    if (entry.from > day) break;
    manager = entry.manager_external_id;
  }
  return manager;
}

/**
 * The rep's managers on the day, nearest first, at most `depth` of them. A cycle (which set-manager refuses,
 * but a chain is read defensively) ends the chain before it repeats anyone.
 */
export function managersOn(hierarchy: RepHierarchy, rep: string, day: CalendarDate, depth: number): string[] {
  const chain: string[] = [];
  const seen = new Set([rep]);
  for (let current = rep; chain.length < depth; ) {
    const manager = managerOn(hierarchy, current, day);
    if (manager === null || seen.has(manager)) break;
    chain.push(manager);
    seen.add(manager);
    current = manager;
  }
  return chain;
}

/** Everyone who is the rep's manager, within `depth` levels, on any day: whose overrides a deal of the rep can move. */
export function managersEver(hierarchy: RepHierarchy, rep: string, depth: number): Set<string> {
  const found = new Set<string>();
  let level = new Set([rep]);
  for (let step = 0; step < depth && level.size > 0; step++) {
    const next = new Set<string>();
    for (const member of level) {
      for (const entry of hierarchy.byRep.get(member) ?? []) {
        const manager = entry.manager_external_id;
        if (manager !== null && manager !== rep && !found.has(manager)) {
          found.add(manager);
          next.add(manager);
        }
      }
    }
    level = next;
  }
  return found;
}

/** Everyone who reports to the manager, within `depth` levels, on any day: whose deals the manager's overrides read. */
export function reportsEver(hierarchy: RepHierarchy, manager: string, depth: number): Set<string> {
  const reportsOf = new Map<string, Set<string>>();
  for (const [rep, entries] of hierarchy.byRep) {
    for (const entry of entries) {
      if (entry.manager_external_id === null) continue;
      const reports = reportsOf.get(entry.manager_external_id) ?? new Set();
      reports.add(rep);
      reportsOf.set(entry.manager_external_id, reports);
    }
  }
  const found = new Set<string>();
  let level = new Set([manager]);
  for (let step = 0; step < depth && level.size > 0; step++) {
    const next = new Set<string>();
    for (const member of level) {
      for (const report of reportsOf.get(member) ?? []) {
        if (report !== manager && !found.has(report)) {
          found.add(report);
          next.add(report);
        }
      }
    }
    level = next;
  }
  return found;
}

/**
 * The first day on which the entries make someone their own manager (up the chain), with the loop; null when
 * they never do. A hierarchy only changes on the days its entries start, so those are the days to check.
 */
export function firstCycle(hierarchy: RepHierarchy): { day: CalendarDate; loop: string[] } | null {
  const days = [...new Set([...hierarchy.byRep.values()].flatMap((entries) => entries.map((entry) => entry.from)))];
  for (const day of days.sort()) {
    for (const rep of hierarchy.byRep.keys()) {
      const loop = [rep];
      for (
        let current = managerOn(hierarchy, rep, day);
        current !== null;
        current = managerOn(hierarchy, current, day)
      ) {
        loop.push(current);
        if (current === rep) return { day, loop };
        if (loop.length > hierarchy.byRep.size + 1) break;
      }
    }
  }
  return null;
}

/**
 * The day whose hierarchy an override of the deal reads: the day the deal is dated, as everywhere in the engine
 * (periods, assignment windows): its close date, else the day it was won (its won time), else, open, today.
 */
export function hierarchyDayOf(deal: DealSnapshot, today: CalendarDate): CalendarDate {
  return dealDate(deal, today);
}

/**
 * Whose override lines a change of the rep's manager can move: everyone above the rep, or above anyone below the
 * rep, within `depth` levels, in the hierarchy before or after the change.
 */
export function overridesMovedBy(before: RepHierarchy, after: RepHierarchy, rep: string, depth: number): Set<string> {
  const moved = new Set<string>();
  for (const hierarchy of [before, after]) {
    for (const member of [rep, ...reportsEver(hierarchy, rep, depth)]) {
      for (const manager of managersEver(hierarchy, member, depth)) moved.add(manager);
    }
  }
  return moved;
}

/**
 * Everyone who reports to the manager on the day, directly or through others (a rep principal's reports: who they
 * may see, read-only). A cycle, which set-manager refuses, ends the walk.
 */
export function reportsOn(hierarchy: RepHierarchy, manager: string, day: CalendarDate): Set<string> {
  const reportsOf = new Map<string, string[]>();
  for (const rep of hierarchy.byRep.keys()) {
    const direct = managerOn(hierarchy, rep, day);
    if (direct !== null) reportsOf.set(direct, [...(reportsOf.get(direct) ?? []), rep]);
  }
  const found = new Set<string>();
  const queue = [manager];
  while (queue.length > 0) {
    const current = queue.shift() as string;
    for (const report of reportsOf.get(current) ?? []) {
      if (report === manager || found.has(report)) continue;
      found.add(report);
      queue.push(report);
    }
  }
  return found;
}
