/**
 * Deterministic demo data for the local stack: a few hundred realistic jobs of several accounts, with
 * names and texts in several languages (diacritics included, so `cafe` finding `Café` can be tried),
 * every status, 3–30 files per job and dates over two years. The same data on every run: a seeded
 * pseudo-random generator, no clock, no external library.
 *
 * Next to the generated jobs, three hand-written ones (ids 9001–9003, {@link DOCUMENTED_JOBS}) are the
 * jobs the examples of README.md and docs/ search for and reject; the documentation test
 * (test/docs/) runs those examples against this data, so change both together.
 */
import {
  JOB_STATUSES,
  type Job,
  type JobFile,
  type JobStatus,
  type Review,
  unreviewedFile,
} from '../../functions/jobs/model/model';
import {
  chance,
  DESCRIPTIONS,
  EXTENSIONS,
  FILE_STEMS,
  FILE_TAGS,
  guidFrom,
  INSTRUCTIONS,
  integerBetween,
  JOB_TAGS,
  pick,
  pickSome,
  QUALIFIERS,
  REJECT_REASONS,
  seededRandom,
  SUBJECTS,
  type Random,
} from './vocabulary';

/** A demo account. */
export interface DemoAccount {
  id: number;
  name: string;
}

/** The demo accounts; the first is the one the local stack's demo user signs in to. */
export const DEMO_ACCOUNTS: readonly DemoAccount[] = [
  { id: 1001, name: 'Café Müller Studio' },
  { id: 1002, name: 'Ørsted Foto' },
  { id: 1003, name: 'Nordlys Fashion AS' },
  { id: 1004, name: 'Atelier Élodie Brûlé' },
  { id: 1005, name: 'Żółty Kot Sp. z o.o.' },
  { id: 1006, name: 'São Paulo Calçados Ltda.' },
];

/** How many demo jobs there are. */
export const DEMO_JOB_COUNT = 240;
const FIRST_JOB_ID = 10_001;
const FIRST_FILE_ID = 300_001;
const SEED = 0x5eed_2024;
const PERIOD_START = Date.UTC(2023, 6, 1);
const PERIOD_END = Date.UTC(2025, 5, 30);

const iso = (epochMs: number): string => new Date(epochMs).toISOString();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Statuses whose jobs have been delivered to the customer. */
const DELIVERED: ReadonlySet<JobStatus> = new Set([
  'CJ_REVIEWING',
  'CJ_REJECT_READY',
  'CJ_REJECT_ERROR',
  'CJ_FINISHED',
  'CJ_ARCHIVED',
]);
/** Statuses whose jobs staff have accepted (an ERROR job went wrong after its acceptance). */
const ACCEPTED: ReadonlySet<JobStatus> = new Set(
  JOB_STATUSES.filter((status) => status !== 'CJ_NEW' && status !== 'CJ_REQUEST_OFFER'),
);
/** Statuses whose jobs were paid (CJ_PREPROCESS comes before the payment; an ERROR job was not paid). */
const PAID: ReadonlySet<JobStatus> = new Set([
  'CJ_JOB_PAID',
  'CJ_WORK_PROGRESS',
  'CJ_REVIEWING',
  'CJ_REJECT_READY',
  'CJ_REJECT_ERROR',
  'CJ_FINISHED',
  'CJ_ARCHIVED',
]);
const stage = (status: JobStatus): number => JOB_STATUSES.indexOf(status);

const review = (random: Random, reviewDate: string): Review => ({
  customRejection: chance(random, 0.5) ? 'Please look at the shadow under the product again.' : null,
  rejects: [
    {
      reason: pick(random, REJECT_REASONS),
      positions: Array.from({ length: integerBetween(random, 0, 2) }, () => ({
        xPercent: Math.round(random() * 100) / 100,
        yPercent: Math.round(random() * 100) / 100,
      })),
    },
  ],
  reviewDate,
});

const rejectionReasonOf = (value: Review): string =>
  value.rejects.length === 0
    ? (value.customRejection ?? '')
    : ` - ${value.rejects.map((reject) => reject.reason).join(' - ')}`;

interface Generated {
  jobs: Job[];
  rejectable: DemoRejectableFile[];
}

/** A file of the demo data that POST /reject accepts as is. */
export interface DemoRejectableFile {
  fileId: number;
  jobId: number;
  accountId: number;
}

const generate = (): Generated => {
  const random = seededRandom(SEED);
  const jobs: Job[] = [];
  const rejectable: DemoRejectableFile[] = [];
  let nextFileId = FIRST_FILE_ID;
  const span = PERIOD_END - PERIOD_START;

  for (let index = 0; index < DEMO_JOB_COUNT; index++) {
    const id = FIRST_JOB_ID + index;
    const account = DEMO_ACCOUNTS[index % DEMO_ACCOUNTS.length] as DemoAccount;
    // Every status appears for every account; the rest are spread at random.
    const status: JobStatus =
      index < JOB_STATUSES.length * DEMO_ACCOUNTS.length
        ? (JOB_STATUSES[Math.floor(index / DEMO_ACCOUNTS.length)] as JobStatus)
        : pick(random, JOB_STATUSES);
    const created = PERIOD_START + Math.floor((span * index) / DEMO_JOB_COUNT) + integerBetween(random, 0, 20 * HOUR);
    // The lifecycle's order: accepted (CJ_ACCEPT), then paid (CJ_JOB_PAID: orderedDate), then delivered, then
    // reviewed. (The two draws below keep the generator's sequence, and so every name and id, as it was.)
    const acceptHours = stage(status) >= stage('CJ_REQUEST_OFFER') ? integerBetween(random, 1, 48) : null;
    const payHours = stage(status) >= stage('CJ_ACCEPT') && status !== 'ERROR' ? integerBetween(random, 1, 72) : null;
    // An ERROR job went wrong once accepted (CJ_ACCEPT may move to ERROR).
    const accepted = acceptHours !== null && ACCEPTED.has(status) ? created + acceptHours * HOUR : null;
    const ordered = accepted !== null && payHours !== null && PAID.has(status) ? accepted + payHours * HOUR : null;
    const delivered = DELIVERED.has(status)
      ? (ordered ?? accepted ?? created) + integerBetween(random, 1, 10) * DAY
      : null;
    const drawnReview =
      status === 'CJ_REJECT_READY' ||
      status === 'CJ_REJECT_ERROR' ||
      (status !== 'CJ_REVIEWING' && delivered !== null && chance(random, 0.6))
        ? (delivered ?? created) + integerBetween(random, 2, 96) * HOUR
        : null;
    // A finished (or finished, then archived) job had every file accepted: it was reviewed.
    let reviewed =
      drawnReview ??
      (delivered !== null && (status === 'CJ_FINISHED' || status === 'CJ_ARCHIVED') ? delivered + DAY : null);

    const fileCount = integerBetween(random, 3, 30);
    const stem = pick(random, FILE_STEMS);
    const firstNumber = integerBetween(random, 1, 4000);
    const files: JobFile[] = [];
    for (let position = 0; position < fileCount; position++) {
      const fileId = nextFileId++;
      const number =
        stem === 'IMG_' || stem === 'DSC_' ? String(firstNumber + position).padStart(4, '0') : String(position + 1);
      const file = unreviewedFile({
        id: fileId,
        fileName: `${stem}${number}${pick(random, EXTENSIONS)}`,
        tags: pickSome(random, FILE_TAGS, 2),
        remarkToProcessor: chance(random, 0.4) ? pick(random, INSTRUCTIONS) : '',
      });
      if (reviewed !== null && (status === 'CJ_REJECT_READY' || status === 'CJ_REJECT_ERROR') && position % 4 === 0) {
        const current = review(random, iso(reviewed));
        file.isRejected = true;
        file.isReviewed = true;
        file.reviews = current;
        file.reviewDate = current.reviewDate;
        file.rejectionReason = rejectionReasonOf(current);
      } else if (reviewed !== null && (status === 'CJ_FINISHED' || status === 'CJ_ARCHIVED')) {
        file.acceptedByUser = true;
        file.isReviewed = true;
        file.reviewDate = iso(reviewed);
      } else if (status === 'CJ_REVIEWING' && position % 5 === 4) {
        file.acceptedByUser = true;
        file.isReviewed = true;
        file.reviewDate = iso((delivered ?? created) + HOUR);
      }
      if (status === 'CJ_REVIEWING' && !file.acceptedByUser)
        rejectable.push({ fileId, jobId: id, accountId: account.id });
      files.push(file);
    }
    // A job in review whose customer has accepted files was reviewed when they were.
    if (status === 'CJ_REVIEWING' && files.some((file) => file.acceptedByUser))
      reviewed = (delivered ?? created) + HOUR;

    const subject = pick(random, SUBJECTS);
    const year = new Date(created).getUTCFullYear();
    jobs.push({
      id,
      accountId: account.id,
      accountName: account.name,
      status,
      guid: guidFrom(random),
      name: `${subject} ${year} – ${pick(random, QUALIFIERS)}`,
      description: pick(random, DESCRIPTIONS),
      invoiceReference: chance(random, 0.7)
        ? pick(random, [
            `INV-${year}-${String(index + 1).padStart(5, '0')}`,
            `PO ${4700 + index}/${account.name.split(' ')[0]}`,
          ])
        : '',
      tags: pickSome(random, JOB_TAGS, 3),
      realCost: Math.round(fileCount * (2.5 + random() * 7.5) * 100) / 100,
      createdDate: iso(created),
      acceptedDate: accepted === null ? null : iso(accepted),
      orderedDate: ordered === null ? null : iso(ordered),
      deliveredDate: delivered === null ? null : iso(delivered),
      reviewedDate: reviewed === null ? null : iso(reviewed),
      files,
    });
  }
  return { jobs, rejectable };
};

/** A file the customer accepted at `reviewDate`. */
const acceptedFile = (file: JobFile, reviewDate: string): JobFile => ({
  ...file,
  acceptedByUser: true,
  isReviewed: true,
  reviewDate,
});

/** An unreviewed file of a documented job. */
const documentedFile = (id: number, fileName: string, tags: string[] = []): JobFile =>
  unreviewedFile({ id, fileName, tags, remarkToProcessor: '' });

/**
 * The jobs the documentation's examples use, all of the first demo account (the demo user's):
 * - 9001, new, "Spring catalogue", created in May 2025: what README's and docs/search.md's searches find;
 * - 9002, in review: files 3325324 and 3325325 are what docs/reject.md rejects (3325323 was accepted);
 * - 9003, finished and then archived: rejecting its file 3325326 answers `410 job_archived`.
 */
export const DOCUMENTED_JOBS: readonly Job[] = [
  {
    id: 9001,
    accountId: 1001,
    accountName: 'Café Müller Studio',
    status: 'CJ_NEW',
    guid: '6f1c2a4e-3b7d-4f0a-9a51-2c8e0d7b9e13',
    name: 'Spring catalogue',
    description: 'Shoes on white',
    invoiceReference: 'INV-2025-09001',
    tags: ['catalogue', 'webshop'],
    realCost: 120.5,
    createdDate: '2025-05-06T15:22:02.860Z',
    acceptedDate: null,
    orderedDate: null,
    deliveredDate: null,
    reviewedDate: null,
    files: [
      documentedFile(3325301, 'cem_test15.jpg', ['front']),
      documentedFile(3325302, 'cem_test16.jpg', ['back']),
      documentedFile(3325303, 'cem_test17.jpg', ['detail']),
    ],
  },
  {
    id: 9002,
    accountId: 1001,
    accountName: 'Café Müller Studio',
    status: 'CJ_REVIEWING',
    guid: '0b5d7c1e-8a2f-4c3d-b6e4-91f0a2c3d4e5',
    name: 'Summer sandals retouch',
    description: 'Remove the background, keep a natural shadow under the product.',
    invoiceReference: 'INV-2025-09002',
    tags: ['webshop'],
    realCost: 48,
    createdDate: '2025-04-02T08:00:00.000Z',
    acceptedDate: '2025-04-02T09:00:00.000Z',
    orderedDate: '2025-04-02T12:00:00.000Z',
    deliveredDate: '2025-04-07T16:30:00.000Z',
    reviewedDate: '2025-04-08T09:00:00.000Z',
    files: [
      {
        ...documentedFile(3325323, 'sandal_left.jpg', ['side']),
        acceptedByUser: true,
        isReviewed: true,
        reviewDate: '2025-04-08T09:00:00.000Z',
      },
      documentedFile(3325324, 'sandal_right.jpg', ['side', 'shadow']),
      documentedFile(3325325, 'sandal_pair.jpg', ['front']),
    ],
  },
  {
    id: 9003,
    accountId: 1001,
    accountName: 'Café Müller Studio',
    status: 'CJ_ARCHIVED',
    guid: 'c3e1f2a4-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
    name: 'Winter jackets archive',
    description: '',
    invoiceReference: '',
    tags: [],
    realCost: 36,
    createdDate: '2024-01-10T10:00:00.000Z',
    acceptedDate: '2024-01-10T11:00:00.000Z',
    orderedDate: '2024-01-10T14:00:00.000Z',
    deliveredDate: '2024-01-15T10:00:00.000Z',
    reviewedDate: '2024-01-16T10:00:00.000Z',
    // Finished (every file accepted), then archived.
    files: [
      acceptedFile(documentedFile(3325326, 'jacket_front.jpg', ['front']), '2024-01-16T10:00:00.000Z'),
      acceptedFile(documentedFile(3325327, 'jacket_back.jpg', ['back']), '2024-01-16T10:00:00.000Z'),
      acceptedFile(documentedFile(3325328, 'jacket_detail.jpg', ['detail']), '2024-01-16T10:00:00.000Z'),
    ],
  },
];

let generated: Generated | undefined;
const data = (): Generated => {
  if (generated !== undefined) return generated;
  const { jobs, rejectable } = generate();
  // Files of the first account first: the demo user belongs to it.
  const documented = structuredClone(DOCUMENTED_JOBS) as Job[];
  const documentedRejectable = documented.flatMap((job) =>
    job.status === 'CJ_REVIEWING'
      ? job.files
          .filter((file) => !file.acceptedByUser)
          .map((file) => ({ fileId: file.id, jobId: job.id, accountId: job.accountId }))
      : [],
  );
  const firstAccount = (DEMO_ACCOUNTS[0] as DemoAccount).id;
  const allRejectable = [...rejectable, ...documentedRejectable].sort(
    (a, b) => Number(b.accountId === firstAccount) - Number(a.accountId === firstAccount) || a.fileId - b.fileId,
  );
  generated = { jobs: [...jobs, ...documented], rejectable: allRejectable };
  return generated;
};

/** The demo jobs: the same {@link DEMO_JOB_COUNT} generated jobs and the documented ones on every call (fresh copies). */
export const demoJobs = (): Job[] => structuredClone(data().jobs);

/**
 * Files that can be rejected right away (their job is `CJ_REVIEWING`, the customer has not accepted
 * them), those of the first demo account first.
 */
export const DEMO_REJECTABLE_FILES: readonly DemoRejectableFile[] = data().rejectable;

/** The ids of {@link DEMO_REJECTABLE_FILES}, in the same order. */
export const DEMO_REJECTABLE_FILE_IDS: readonly number[] = DEMO_REJECTABLE_FILES.map((file) => file.fileId);
