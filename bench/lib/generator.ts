/**
 * The benchmark's synthetic jobs: realistic names, instructions, file names and lifecycles of a photo
 * post-production platform, generated deterministically from a job id. Job `n` of a {@link Population}
 * is always the same job, so a benchmark can regenerate any job (to pick query targets) without keeping
 * a million of them in memory, and a cached index is valid as long as {@link GENERATOR_VERSION} and the
 * population match.
 */
import { type Job, type JobFile, type JobStatus, unreviewedFile } from '../../functions/jobs/model/model';

/** Bump whenever the generated jobs change: cached indexes keyed by it are rebuilt. */
export const GENERATOR_VERSION = 1;

/** How many jobs, over how many accounts, plus one large account. */
export interface Population {
  /** Jobs spread over the regular accounts. */
  jobs: number;
  /** Regular accounts (ids 1…accounts). */
  accounts: number;
  /** Jobs of the one large account, on top of `jobs`. */
  largeAccountJobs: number;
}

/** The id of the large account (outside the regular range). */
export const LARGE_ACCOUNT_ID = 900_001;

/** Every job id of a population: 1…total. */
export const totalJobs = (population: Population): number => population.jobs + population.largeAccountJobs;

/** First created date of the population; dates grow with the job id over ten years. */
export const FIRST_CREATED = Date.UTC(2015, 0, 1);
export const CREATED_SPAN_MS = 10 * 365 * 86_400_000;
const DAY = 86_400_000;

/** A small, fast, seedable PRNG (mulberry32). */
export class Random {
  #state: number;

  public constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  public next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max]. */
  public int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  public pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.next() * values.length)] as T;
  }

  public chance(probability: number): boolean {
    return this.next() < probability;
  }
}

/** Mixes a job id and a salt into a 32-bit seed. */
const seedOf = (id: number, salt: number): number => {
  let h = Math.imul(id ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt + GENERATOR_VERSION, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h >>> 0;
};

const ACCOUNT_FIRST = [
  'Nordlicht',
  'Maison',
  'Atelier',
  'Café',
  'Müller',
  'Ørsted',
  'Señorita',
  'Bergström',
  'Blue Harbour',
  'Urban',
  'Kleine',
  'Studio',
  'Fjord',
  'Lumière',
  'Oak & Stone',
  'Velvet',
  'Hansen',
  'Rivière',
  'Peak',
  'Żółw',
];
const ACCOUNT_SECOND = [
  'Mode',
  'Fashion',
  'Shoes',
  'Interiors',
  'Outdoor',
  'Jewellery',
  'Kids',
  'Home',
  'Sport',
  'Beauty',
];
const ACCOUNT_FORM = ['GmbH', 'Ltd', 'AB', 'S.A.', 'BV', 'Inc.', 'AS', 'Oy'];

const SEASONS = ['Spring', 'Summer', 'Autumn', 'Winter', 'SS', 'AW', 'Resort', 'Holiday', 'Pre-fall'];
const PRODUCTS = [
  'shoes',
  'boots',
  'sneakers',
  'sandals',
  'dresses',
  'shirts',
  'jackets',
  'coats',
  'knitwear',
  'denim',
  'bags',
  'wallets',
  'watches',
  'rings',
  'necklaces',
  'sofas',
  'lamps',
  'rugs',
  'kidswear',
  'swimwear',
  'lingerie',
  'sunglasses',
  'belts',
  'scarves',
];
const KINDS = [
  'catalogue',
  'lookbook',
  'campaign',
  'packshots',
  'webshop',
  'ghost mannequin',
  'flat lay',
  'on model',
  'e-commerce',
  'retouch',
  'reshoot',
  'colour variants',
  'marketplace',
];
const INSTRUCTIONS = [
  'Remove the background to pure white (#FFFFFF).',
  'Keep the natural shadow under the product.',
  'Crop to 4:5 with a 5% margin on every side.',
  'Colour match to the physical sample sent by post.',
  'Clean dust and lint, smooth creases on the fabric.',
  'Deliver as JPEG, sRGB, 2000×2500 px.',
  'Deliver as layered TIFF with clipping paths.',
  'Ghost mannequin: merge the neck joint shot.',
  'Straighten the horizon and correct the perspective.',
  'Remove the hanger and the price tag.',
  'Skin retouch: natural, keep the freckles.',
  'Align all variants to the same product height.',
  'Café au lait tones must stay warm, do not desaturate.',
  'Add a reflection on the glass surface.',
  'Same crop as last season’s catalogue.',
];
const FILE_REMARKS = [
  'Remove the tag on the sleeve',
  'Fix the collar',
  'Brighten the shadow side',
  'Remove the scratch on the heel',
  'Straighten the zip',
  'Colour is too cold',
  'Make the logo readable',
];
const JOB_TAGS = ['priority', 'webshop', 'print', 'rush', 'marketplace', 'social', 'newsletter', 'outlet', 'b2b'];
const FILE_TAGS = ['front', 'back', 'side', 'detail', 'packshot', 'model', 'variant', 'hero'];
const COLOURS = ['black', 'white', 'navy', 'red', 'beige', 'olive', 'grey', 'camel', 'pink'];
const EXTENSIONS = ['jpg', 'jpg', 'jpg', 'tif', 'png', 'NEF', 'CR2'];

const REVIEW_STATUSES: readonly JobStatus[] = ['CJ_REVIEWING', 'CJ_FINISHED', 'CJ_REJECT_READY', 'CJ_REJECT_ERROR'];
const ACTIVE_STATUSES: readonly JobStatus[] = [
  'CJ_NEW',
  'CJ_REQUEST_OFFER',
  'CJ_ACCEPT',
  'CJ_PREPROCESS',
  'CJ_JOB_PAID',
  'CJ_WORK_PROGRESS',
  'CJ_REVIEWING',
  'CJ_REJECT_READY',
  'CJ_REJECT_ERROR',
];

/** The display name of an account, stable per account id. */
export const accountName = (accountId: number): string => {
  const random = new Random(seedOf(accountId, 7));
  return `${random.pick(ACCOUNT_FIRST)} ${random.pick(ACCOUNT_SECOND)} ${random.pick(ACCOUNT_FORM)}`;
};

/** The short code an account puts in its file names (`cem`, `nfm`, …). */
const accountCode = (accountId: number): string => {
  const random = new Random(seedOf(accountId, 11));
  return Array.from({ length: 3 }, () => String.fromCharCode(97 + random.int(0, 25))).join('');
};

/** Which account a job belongs to: the large account for its share of ids, else a regular one. */
export const accountOf = (population: Population, id: number): number => {
  const random = new Random(seedOf(id, 3));
  if (random.next() < population.largeAccountJobs / totalJobs(population)) return LARGE_ACCOUNT_ID;
  return 1 + Math.floor(random.next() * population.accounts);
};

/** When job `id` was created: grows with the id, with a few hours of jitter. */
export const createdOf = (population: Population, id: number): number => {
  const random = new Random(seedOf(id, 5));
  return FIRST_CREATED + Math.floor((id / totalJobs(population)) * CREATED_SPAN_MS) + random.int(0, 6 * 3_600_000);
};

const statusOf = (random: Random, recent: boolean): JobStatus => {
  if (recent) return random.pick(ACTIVE_STATUSES);
  const roll = random.next();
  if (roll < 0.55) return 'CJ_ARCHIVED';
  if (roll < 0.85) return 'CJ_FINISHED';
  if (roll < 0.88) return 'CJ_REJECT_READY';
  if (roll < 0.9) return 'ERROR';
  return random.pick(ACTIVE_STATUSES);
};

const guidOf = (random: Random): string => {
  const hex = (count: number): string => Array.from({ length: count }, () => random.int(0, 15).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${random.pick(['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`;
};

const fileNameOf = (random: Random, code: string, sku: number, index: number): string => {
  const extension = random.pick(EXTENSIONS);
  const number = String(random.int(1, 9_999)).padStart(4, '0');
  switch (random.int(0, 4)) {
    case 0:
      return `IMG_${number}.${extension}`;
    case 1:
      return `DSC0${number}.${extension}`;
    case 2:
      return `${code}_test${index + 1}.${extension}`;
    case 3:
      return `${random.pick(SEASONS).toUpperCase().slice(0, 2)}${random.int(15, 25)}-${sku}_${random.pick(COLOURS)}_${String(index + 1).padStart(2, '0')}.${extension}`;
    default:
      return `_MG_${number}.${extension}`;
  }
};

/** How many files a job has: mostly a few, sometimes dozens (mean ≈ 5). */
const fileCountOf = (random: Random): number => {
  let count = 1;
  while (count < 30 && random.chance(0.8)) count += 1;
  return count;
};

const iso = (epochMs: number): string => new Date(epochMs).toISOString();

/**
 * Job `id` of a population, with its files. File ids are `id * 100 + n`, so they are unique and
 * derivable.
 */
export const generateJob = (population: Population, id: number): Job => {
  const random = new Random(seedOf(id, 1));
  const accountId = accountOf(population, id);
  const created = createdOf(population, id);
  const recent = id > totalJobs(population) * 0.98;
  const status = statusOf(random, recent);
  const year = new Date(created).getUTCFullYear();
  const product = random.pick(PRODUCTS);
  const name = random.chance(0.25)
    ? `Webshop ${product} week ${random.int(1, 52)}`
    : `${random.pick(SEASONS)} ${random.chance(0.6) ? `${year} ` : ''}${product} ${random.pick(KINDS)}`;
  const description = random.chance(0.15)
    ? ''
    : Array.from({ length: random.int(1, 4) }, () => random.pick(INSTRUCTIONS)).join(' ');
  const code = accountCode(accountId);
  const sku = random.int(1_000, 99_999);
  const files: JobFile[] = Array.from({ length: fileCountOf(random) }, (_, index) =>
    unreviewedFile({
      id: id * 100 + index,
      fileName: fileNameOf(random, code, sku, index),
      tags: random.chance(0.3) ? [random.pick(FILE_TAGS)] : [],
      remarkToProcessor: random.chance(0.1) ? random.pick(FILE_REMARKS) : '',
    }),
  );
  const accepted =
    status === 'CJ_NEW' || status === 'CJ_REQUEST_OFFER' ? null : created + random.int(1, 48) * 3_600_000;
  const delivered =
    REVIEW_STATUSES.includes(status) || status === 'CJ_ARCHIVED' ? created + random.int(1, 20) * DAY : null;
  const reviewed = delivered !== null && status !== 'CJ_REVIEWING' && random.chance(0.5) ? delivered + DAY : null;
  return {
    id,
    accountId,
    accountName: accountName(accountId),
    status,
    guid: guidOf(random),
    name,
    description,
    invoiceReference: random.chance(0.6) ? `INV-${year}-${String(random.int(1, 999_999)).padStart(6, '0')}` : '',
    tags: random.chance(0.4) ? [random.pick(JOB_TAGS)] : [],
    realCost: Math.round(files.length * random.int(150, 1_200)) / 100,
    createdDate: iso(created),
    acceptedDate: accepted === null ? null : iso(accepted),
    orderedDate: accepted === null ? null : iso(accepted),
    deliveredDate: delivered === null ? null : iso(delivered),
    reviewedDate: reviewed === null ? null : iso(reviewed),
    files,
  };
};

/** The ids `from…to` (inclusive) that belong to an account, in ascending order, at most `limit`. */
export const idsOfAccount = (population: Population, accountId: number, from: number, limit: number): number[] => {
  const ids: number[] = [];
  for (let id = from; id <= totalJobs(population) && ids.length < limit; id++) {
    if (accountOf(population, id) === accountId) ids.push(id);
  }
  return ids;
};
