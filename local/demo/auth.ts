/**
 * The demo clients and sessions `npm start` creates on first start, so the printed curl commands work
 * at once. The auth table stores only token hashes, so the tokens themselves are kept in
 * `<DATA_DIR>/demo-tokens.json` (readable by the owner only) for later starts to print them again.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AuthStore, ClientAccounts } from '../../functions/auth/store';
import type { Grant, Role } from '../../functions/auth/principal';
import { roleSessionTtlCap } from '../../functions/auth/session-limits';

/** How long demo sessions last: as long as their role allows (30 days for a user, 12 hours for an operator). */
export const demoSessionTtlSeconds = (role: Role): number => roleSessionTtlCap(role);

/**
 * Sessions are issued again on start when they would expire within this margin: a day for a user, an hour
 * for an operator (whose sessions last 12 hours).
 */
export const demoSessionRenewalMarginMs = (role: Role): number => (role === 'operator' ? 1 : 24) * 60 * 60 * 1000;

/** A demo client, its token and its secret (for `POST /sessions` from a backend). */
export interface DemoClient {
  name: string;
  clientId: string;
  clientToken: string;
  clientSecret: string;
  grants: Grant[];
  /** The accounts its sessions may belong to (absent in tokens saved before clients had accounts: every one). */
  accounts?: ClientAccounts;
}

/** A demo session and the tokens to use it with. */
export interface DemoSession {
  /** What the session is for, printed beside the curl commands. */
  description: string;
  clientToken: string;
  sessionToken: string;
  sessionId: string;
  userId: string;
  accountId: number;
  role: Role;
  expiresAt: string;
}

/** Every demo credential. */
export interface DemoTokens {
  clients: { demoApp: DemoClient; searchOnlyApp: DemoClient };
  sessions: {
    /** A user of the first demo account, through the "Demo app" (search and reject). */
    user: DemoSession;
    /** A user of another demo account, through the "Demo app". */
    otherAccountUser: DemoSession;
    /** Staff: sees every account, through the "Demo app". */
    operator: DemoSession;
    /** A user of the first demo account, through the "Search-only app" (rejecting answers 403). */
    searchOnlyUser: DemoSession;
  };
}

/** The accounts the demo sessions belong to. */
export interface DemoAccounts {
  /** The first demo account (its users see its jobs). */
  first: number;
  /** Another demo account (to show that users see only their own account). */
  other: number;
}

/** The part of the auth store demo seeding uses. */
export type DemoAuthStore = Pick<AuthStore, 'createClient' | 'createSession'>;

type SessionName = keyof DemoTokens['sessions'];

interface SessionPlan {
  client: keyof DemoTokens['clients'];
  userId: string;
  role: Role;
  account: keyof DemoAccounts;
  description: string;
}

const SESSION_PLANS: Record<SessionName, SessionPlan> = {
  user: {
    client: 'demoApp',
    userId: 'demo-user',
    role: 'user',
    account: 'first',
    description: 'a user of the first demo account',
  },
  otherAccountUser: {
    client: 'demoApp',
    userId: 'demo-other-user',
    role: 'user',
    account: 'other',
    description: 'a user of another demo account',
  },
  operator: {
    client: 'demoApp',
    userId: 'demo-operator',
    role: 'operator',
    account: 'first',
    description: 'an operator (staff, sees every account)',
  },
  searchOnlyUser: {
    client: 'searchOnlyApp',
    userId: 'demo-user',
    role: 'user',
    account: 'first',
    description: 'a user of the first demo account through the search-only client',
  },
};

const createSession = async (
  store: DemoAuthStore,
  clients: DemoTokens['clients'],
  accounts: DemoAccounts,
  plan: SessionPlan,
): Promise<DemoSession> => {
  const clientToken = clients[plan.client].clientToken;
  const accountId = accounts[plan.account];
  const session = await store.createSession({
    clientToken,
    accountId,
    userId: plan.userId,
    role: plan.role,
    ttlSeconds: demoSessionTtlSeconds(plan.role),
  });
  return {
    description: plan.description,
    clientToken,
    sessionToken: session.token,
    sessionId: session.sessionId,
    userId: plan.userId,
    accountId,
    role: plan.role,
    expiresAt: session.expiresAt,
  };
};

const createSessions = async (
  store: DemoAuthStore,
  clients: DemoTokens['clients'],
  accounts: DemoAccounts,
): Promise<DemoTokens['sessions']> => ({
  user: await createSession(store, clients, accounts, SESSION_PLANS.user),
  otherAccountUser: await createSession(store, clients, accounts, SESSION_PLANS.otherAccountUser),
  operator: await createSession(store, clients, accounts, SESSION_PLANS.operator),
  searchOnlyUser: await createSession(store, clients, accounts, SESSION_PLANS.searchOnlyUser),
});

const createClient = async (
  store: DemoAuthStore,
  name: string,
  grants: Grant[],
  sessionRoles: Role[],
  accounts: ClientAccounts,
): Promise<DemoClient> => {
  const { clientId, token, secret } = await store.createClient({ name, grants, sessionRoles, accounts });
  return { name, clientId, clientToken: token, clientSecret: secret, grants, accounts };
};

/**
 * Creates the demo clients and their sessions: "Demo app" (search, reject, jobs and sessions, for users and
 * operators, so every account: a platform's own portal) and "Search-only app" (search, for users of the first
 * demo account only: a third-party integration bound to its customer).
 */
export const createDemoAuth = async (store: DemoAuthStore, accounts: DemoAccounts): Promise<DemoTokens> => {
  const clients = {
    demoApp: await createClient(store, 'Demo app', ['search', 'reject', 'jobs', 'sessions'], ['user', 'operator'], '*'),
    searchOnlyApp: await createClient(store, 'Search-only app', ['search'], ['user'], [accounts.first]),
  };
  return { clients, sessions: await createSessions(store, clients, accounts) };
};

/** Whether any demo session has expired or expires within {@link demoSessionRenewalMarginMs}. */
export const demoSessionsExpiring = (tokens: DemoTokens, now: number = Date.now()): boolean =>
  Object.values(tokens.sessions).some(
    (session) => Date.parse(session.expiresAt) - now < demoSessionRenewalMarginMs(session.role),
  );

/** Issues the demo sessions again for the same clients (when the old ones are about to expire). */
export const renewDemoSessions = async (store: DemoAuthStore, tokens: DemoTokens): Promise<DemoTokens> => {
  const accounts = { first: tokens.sessions.user.accountId, other: tokens.sessions.otherAccountUser.accountId };
  return { clients: tokens.clients, sessions: await createSessions(store, tokens.clients, accounts) };
};

/** The saved demo tokens file is not what this version writes. */
export class DemoTokensFileError extends Error {
  public constructor(path: string, detail: string) {
    super(`${path} is not a demo tokens file (${detail}); delete it to create new demo tokens`);
    this.name = 'DemoTokensFileError';
  }
}

/**
 * The saved demo tokens were written before clients had secrets: the demo clients in that store cannot open
 * sessions through `POST /sessions`, so new demo clients and sessions are issued in their place.
 */
export class LegacyDemoTokensError extends DemoTokensFileError {
  public constructor(path: string) {
    super(path, 'written before client secrets');
    this.name = 'LegacyDemoTokensError';
  }
}

const isDemoTokens = (value: unknown, { withSecrets = true } = {}): value is DemoTokens => {
  if (typeof value !== 'object' || value === null) return false;
  const { clients, sessions } = value as Partial<DemoTokens>;
  if (typeof clients !== 'object' || clients === null || typeof sessions !== 'object' || sessions === null)
    return false;
  const clientsOk = [clients.demoApp, clients.searchOnlyApp].every(
    (client) =>
      typeof client?.clientToken === 'string' &&
      typeof client.clientId === 'string' &&
      (!withSecrets || typeof client.clientSecret === 'string'),
  );
  const sessionsOk = (Object.keys(SESSION_PLANS) as SessionName[]).every((name) => {
    const session = sessions[name];
    return typeof session?.sessionToken === 'string' && typeof session.expiresAt === 'string';
  });
  return clientsOk && sessionsOk;
};

/** Reads saved demo tokens; `undefined` when the file does not exist. */
export const loadDemoTokens = async (path: string): Promise<DemoTokens | undefined> => {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DemoTokensFileError(path, 'not JSON');
  }
  if (!isDemoTokens(value)) {
    throw isDemoTokens(value, { withSecrets: false })
      ? new LegacyDemoTokensError(path)
      : new DemoTokensFileError(path, 'unexpected shape');
  }
  return value;
};

/** Saves demo tokens, readable and writable by the owner only. */
export const saveDemoTokens = async (path: string, tokens: DemoTokens): Promise<void> => {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(tokens, null, 2)}\n`, { mode: 0o600 });
};

/** Quotes a word for a POSIX shell. */
export const shellQuote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

/** One ready-to-paste curl command and what it shows. */
export interface DemoCommand {
  title: string;
  command: string;
}

/** What the demo curl commands need besides the tokens. */
export interface DemoCommandOptions {
  /** The API's base URL as the user types it (`http://localhost:3000`). */
  baseUrl: string;
  /** A word that finds demo jobs of the first account. */
  query: string;
  /** A file that can be rejected, and the session allowed to reject it. */
  rejectable?: { fileId: number; session: keyof DemoTokens['sessions'] };
}

const curl = (
  baseUrl: string,
  method: 'GET' | 'POST',
  path: string,
  session: DemoSession,
  body?: { contentType: string; data: string[] },
): string => {
  const parts = ['curl', '-sS'];
  if (method === 'POST') parts.push('-X', 'POST');
  parts.push(shellQuote(`${baseUrl}${path}`), '-H', shellQuote('Accept: application/json'));
  if (body !== undefined) parts.push('-H', shellQuote(`Content-Type: ${body.contentType}`));
  parts.push('-H', shellQuote(`X-Client-Token: ${session.clientToken}`));
  parts.push('-H', shellQuote(`X-Session-Token: ${session.sessionToken}`));
  for (const data of body?.data ?? []) parts.push('--data-raw', shellQuote(data));
  return parts.join(' ');
};

const json = (data: unknown) => ({ contentType: 'application/json', data: [JSON.stringify(data)] });

/** The curl commands `npm start` prints: search fields, JSON and form searches, and a rejection. */
export const demoCommands = (tokens: DemoTokens, options: DemoCommandOptions): DemoCommand[] => {
  const { baseUrl, query } = options;
  const { user, operator, otherAccountUser } = tokens.sessions;
  const commands: DemoCommand[] = [
    { title: 'Search fields for a user', command: curl(baseUrl, 'GET', '/search/fields', user) },
    { title: 'Search fields for an operator', command: curl(baseUrl, 'GET', '/search/fields', operator) },
    {
      title: `Search (JSON body) as ${user.description}`,
      command: curl(baseUrl, 'POST', '/search', user, json({ field: 'Global', query, page: 0, pageSize: 5 })),
    },
    {
      title: `Search (form body) as ${user.description}`,
      command: curl(baseUrl, 'POST', '/search', user, {
        contentType: 'application/x-www-form-urlencoded',
        data: [
          new URLSearchParams([
            ['query', query],
            ['pageSize', '5'],
          ]).toString(),
        ],
      }),
    },
    {
      title: `The same search as ${otherAccountUser.description} (sees only its own account)`,
      command: curl(baseUrl, 'POST', '/search', otherAccountUser, json({ query, pageSize: 5 })),
    },
  ];
  if (options.rejectable !== undefined) {
    const session = tokens.sessions[options.rejectable.session];
    commands.push({
      title: `Reject file ${options.rejectable.fileId} as ${session.description}`,
      command: curl(
        baseUrl,
        'POST',
        '/reject',
        session,
        json({
          files: [
            {
              fileId: options.rejectable.fileId,
              customRejection: 'Shadow under the shoe is missing',
              rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.61, yPercent: 0.44 }] }],
            },
          ],
        }),
      ),
    });
  }
  return commands;
};
