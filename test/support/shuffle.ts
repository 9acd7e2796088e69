/** A copy of `items` in a fixed pseudo-random order: a Fisher–Yates shuffle driven by a Lehmer generator. */
export const seededShuffle = <T>(items: readonly T[], seed: number): T[] => {
  const list = [...items];
  let state = seed;
  for (let index = list.length - 1; index > 0; index--) {
    state = (state * 48_271) % 2_147_483_647;
    const other = state % (index + 1);
    [list[index], list[other]] = [list[other] as T, list[index] as T];
  }
  return list;
};
