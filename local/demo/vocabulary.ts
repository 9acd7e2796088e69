/**
 * The raw material of the demo data: a seeded pseudo-random source (the same data on every run, no clock)
 * and the words the demo jobs are made of, in several languages with diacritics so `cafe` finding `Café`
 * can be tried.
 */
/** mulberry32: a small, fast, seeded pseudo-random generator (uniform in [0, 1)). */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

export type Random = () => number;
export const integerBetween = (random: Random, min: number, max: number): number =>
  min + Math.floor(random() * (max - min + 1));
export const pick = <T>(random: Random, values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
export const chance = (random: Random, probability: number): boolean => random() < probability;
export const pickSome = <T>(random: Random, values: readonly T[], max: number): T[] => {
  const count = integerBetween(random, 0, max);
  return [...new Set(Array.from({ length: count }, () => pick(random, values)))];
};

export const guidFrom = (random: Random): string => {
  const hex = (digits: number): string =>
    Array.from({ length: digits }, () => Math.floor(random() * 16).toString(16)).join('');
  const variant = (8 + Math.floor(random() * 4)).toString(16);
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`;
};

export const SUBJECTS = [
  'Spring catalogue',
  'Summer lookbook',
  'Autumn campaign',
  'Winter jackets',
  'Crème brûlée menu shoot',
  'Garçon shirts',
  'Fjällräven backpacks',
  'Über-sneakers',
  'Smørrebrød platters',
  'Jalapeño sauces',
  'Škoda dealership cars',
  'Tørklæder og huer',
  'Łazienka tiles',
  'Açaí bowls',
  'Noël gift boxes',
  'Sommerkjoler',
  'Möbel Kollektion',
  'Pâtisserie window',
  'Ski goggles',
  'Leather handbags',
];
export const QUALIFIERS = [
  'packshots',
  'ghost mannequin',
  'on model',
  'flat lay',
  'detail shots',
  'e-commerce set',
  'hero images',
];
export const DESCRIPTIONS = [
  'Remove the background, keep a natural shadow under the product.',
  'Retusche der Hautpartien, Farben an das Referenzbild angleichen.',
  'Fjern baggrunden og ret farverne, så de matcher prøven.',
  'Détourage précis, ombre portée légère, format carré.',
  'Usuń tło, wyrównaj kolory, zachowaj fakturę materiału.',
  'Recorte com sombra natural, cores fiéis ao produto.',
  'Straighten the horizon and clean dust spots on the lens.',
  'Ghost mannequin: merge front and inside neck shots.',
  '',
];
export const JOB_TAGS = [
  'urgent',
  'catalogue',
  'webshop',
  'print',
  'social',
  'højsæson',
  'réédition',
  'wyprzedaż',
  'B2B',
];
export const FILE_TAGS = [
  'front',
  'back',
  'side',
  'detail',
  'shadow',
  'ghost-mannequin',
  'colour-match',
  'nahaufnahme',
  'vue-de-face',
];
export const FILE_STEMS = [
  'cem_test',
  'IMG_',
  'DSC_',
  'produkt_åre_',
  'mütze-rot_',
  'chaussure_',
  'kjole-blå_',
  'packshot-',
  'look',
];
export const EXTENSIONS = ['.jpg', '.jpg', '.jpg', '.JPG', '.tif', '.png'];
export const INSTRUCTIONS = [
  'Keep the label readable.',
  'Schatten unter dem Schuh beibehalten.',
  'Fjern fnug fra stoffet.',
  'Retoucher les plis du tissu.',
  'Match the colour to swatch #12.',
  'Crop tight, 5 % margin.',
];
export const REJECT_REASONS = ['Cropping', 'Colour', 'Shadow', 'Background', 'Retouching', 'Mask edge'];
