import { describeCondition } from '../describe.ts';
import type { ChipDefinition, Condition } from '../types.ts';
import type { ChipSection } from './model.ts';
import { fieldWords } from './readable.ts';

/** Rule precedence in words: a replacing chip says what it replaces, a replaced chip on which deals it gives way. */
export function withPrecedenceSentences(chips: readonly ChipDefinition[], sections: ChipSection[]): ChipSection[] {
  return sections.map((section, index) => {
    const chip = chips[index] as ChipDefinition;
    const replaces = 'replaces' in chip.params ? (chip.params.replaces ?? []) : [];
    const names = replaces.map((key) => chips.find((other) => other.key === key)?.name ?? key);
    const replacedBy = chips.filter(
      (other) => 'replaces' in other.params && other.params.replaces?.includes(chip.key) && other.when !== null,
    );
    let next = section;
    if (names.length > 0) {
      next = {
        ...next,
        pays: `${next.pays} On these deals it replaces ${names.join(' and ')}, which then pays nothing on them.`,
      };
    }
    if (replacedBy.length > 0) {
      const except = replacedBy
        .map((other) => `${other.name}'s deals (${describeCondition(other.when as Condition, fieldWords)})`)
        .join(' or ');
      next = {
        ...next,
        applies_when: `${next.applies_when ?? 'Every deal'}, except ${except}: there ${replacedBy.length === 1 ? 'that chip pays' : 'those chips pay'} instead`,
      };
    }
    return next;
  });
}
