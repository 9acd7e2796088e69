/**
 * DynamoDB Local binds every network interface and has no option to do otherwise: its jar builds an
 * embedded Jetty server with `new Server(port)`, whose one connector has no host. Anyone on the same
 * network could then read and write the local stack's clients, sessions and jobs, without credentials.
 *
 * This module writes a tiny Java launcher class that starts DynamoDB Local with its connector bound to
 * one address (127.0.0.1). The class is assembled here, byte by byte, rather than compiled: a Java
 * runtime (a JRE, without `javac`) is all the local stack asks for, and no binary sits in the
 * repository. Its whole program, as Java:
 *
 * ```java
 * public final class JobsApiDynamoDbLauncher {
 *   public static void main(String[] args) throws Exception {
 *     // args[0] is the host to bind; the rest are DynamoDB Local's own options.
 *     DynamoDBProxyServer proxy =
 *         ServerRunner.createServerFromCommandLineArgs((String[]) Arrays.copyOfRange(args, 1, args.length));
 *     Field field = DynamoDBProxyServer.class.getDeclaredField("server");
 *     field.setAccessible(true);
 *     ServerConnector connector = (ServerConnector) ((Server) field.get(proxy)).getConnectors()[0];
 *     connector.setHost(args[0]);
 *     proxy.start();
 *     System.out.println(BOUND_PREFIX + connector.getHost() + ":" + connector.getLocalPort());
 *   }
 * }
 * ```
 *
 * It fails closed: should a release of DynamoDB Local build its server differently (no `server` field,
 * another kind of connector), the launcher throws before anything listens. The line it prints after
 * the start is the address Jetty really bound (a port ≤ 0 when the start failed), which
 * {@link startDynamoDbLocal} checks. The method has no branch, so the class needs no stack map frames
 * and any Java 8+ verifier accepts it as it is.
 */

/** The launcher's class name (in the default package). */
export const LAUNCHER_CLASS = 'JobsApiDynamoDbLauncher';

/** What the launcher prints before `<host>:<port>` once DynamoDB Local is started. */
export const BOUND_PREFIX = 'DynamoDB Local bound to ';

const PROXY_SERVER = 'software/amazon/dynamodb/services/local/server/DynamoDBProxyServer';
const SERVER_RUNNER = 'software/amazon/dynamodb/services/local/main/ServerRunner';
const JETTY_SERVER = 'org/eclipse/jetty/server/Server';
const JETTY_CONNECTOR = 'org/eclipse/jetty/server/ServerConnector';

/** A class file's constant pool: entries are added once and referred to by index. */
class ConstantPool {
  readonly #entries: Buffer[] = [];
  readonly #indexes = new Map<string, number>();

  public get count(): number {
    return this.#entries.length + 1;
  }

  public bytes(): Buffer {
    return Buffer.concat(this.#entries);
  }

  public utf8(text: string): number {
    // Class, member and string names here are ASCII, where modified UTF-8 is plain ASCII.
    if (!/^[\x20-\x7e]*$/.test(text)) throw new Error(`Not an ASCII constant: ${text}`);
    const body = Buffer.from(text, 'ascii');
    return this.#add(`utf8 ${text}`, Buffer.concat([u1(1), u2(body.length), body]));
  }

  public classRef(internalName: string): number {
    return this.#add(`class ${internalName}`, Buffer.concat([u1(7), u2(this.utf8(internalName))]));
  }

  public string(text: string): number {
    return this.#add(`string ${text}`, Buffer.concat([u1(8), u2(this.utf8(text))]));
  }

  public fieldRef(owner: string, name: string, descriptor: string): number {
    return this.#memberRef(9, owner, name, descriptor);
  }

  public methodRef(owner: string, name: string, descriptor: string): number {
    return this.#memberRef(10, owner, name, descriptor);
  }

  #memberRef(tag: number, owner: string, name: string, descriptor: string): number {
    const nameAndType = this.#add(
      `nat ${name} ${descriptor}`,
      Buffer.concat([u1(12), u2(this.utf8(name)), u2(this.utf8(descriptor))]),
    );
    return this.#add(
      `ref${tag} ${owner}.${name}${descriptor}`,
      Buffer.concat([u1(tag), u2(this.classRef(owner)), u2(nameAndType)]),
    );
  }

  #add(key: string, entry: Buffer): number {
    const known = this.#indexes.get(key);
    if (known !== undefined) return known;
    this.#entries.push(entry);
    const index = this.#entries.length; // constant pool indexes start at 1
    this.#indexes.set(key, index);
    return index;
  }
}

const u1 = (value: number): Buffer => Buffer.from([value]);
const u2 = (value: number): Buffer => {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16BE(value);
  return buffer;
};
const u4 = (value: number): Buffer => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
};

/** The JVM instructions the launcher uses. */
const OP = {
  iconst0: 0x03,
  iconst1: 0x04,
  ldcW: 0x13,
  aload0: 0x2a,
  aload1: 0x2b,
  aload2: 0x2c,
  aload3: 0x2d,
  aaload: 0x32,
  astore1: 0x4c,
  astore2: 0x4d,
  astore3: 0x4e,
  return: 0xb1,
  getstatic: 0xb2,
  invokevirtual: 0xb6,
  invokestatic: 0xb8,
  arraylength: 0xbe,
  checkcast: 0xc0,
} as const;

/** The bytes of the launcher class (class file version 52, Java 8). */
export const launcherClassBytes = (): Buffer => {
  const pool = new ConstantPool();
  const code: Buffer[] = [];
  const op = (opcode: number, index?: number): void => {
    code.push(index === undefined ? u1(opcode) : Buffer.concat([u1(opcode), u2(index)]));
  };
  const concat = pool.methodRef('java/lang/String', 'concat', '(Ljava/lang/String;)Ljava/lang/String;');

  // proxy = ServerRunner.createServerFromCommandLineArgs((String[]) Arrays.copyOfRange(args, 1, args.length))
  op(OP.aload0);
  op(OP.iconst1);
  op(OP.aload0);
  op(OP.arraylength);
  op(OP.invokestatic, pool.methodRef('java/util/Arrays', 'copyOfRange', '([Ljava/lang/Object;II)[Ljava/lang/Object;'));
  op(OP.checkcast, pool.classRef('[Ljava/lang/String;'));
  op(
    OP.invokestatic,
    pool.methodRef(SERVER_RUNNER, 'createServerFromCommandLineArgs', `([Ljava/lang/String;)L${PROXY_SERVER};`),
  );
  op(OP.astore1);
  // field = DynamoDBProxyServer.class.getDeclaredField("server"); field.setAccessible(true)
  op(OP.ldcW, pool.classRef(PROXY_SERVER));
  op(OP.ldcW, pool.string('server'));
  op(
    OP.invokevirtual,
    pool.methodRef('java/lang/Class', 'getDeclaredField', '(Ljava/lang/String;)Ljava/lang/reflect/Field;'),
  );
  op(OP.astore2);
  op(OP.aload2);
  op(OP.iconst1);
  op(OP.invokevirtual, pool.methodRef('java/lang/reflect/Field', 'setAccessible', '(Z)V'));
  // connector = (ServerConnector) ((Server) field.get(proxy)).getConnectors()[0]
  op(OP.aload2);
  op(OP.aload1);
  op(OP.invokevirtual, pool.methodRef('java/lang/reflect/Field', 'get', '(Ljava/lang/Object;)Ljava/lang/Object;'));
  op(OP.checkcast, pool.classRef(JETTY_SERVER));
  op(OP.invokevirtual, pool.methodRef(JETTY_SERVER, 'getConnectors', '()[Lorg/eclipse/jetty/server/Connector;'));
  op(OP.iconst0);
  op(OP.aaload);
  op(OP.checkcast, pool.classRef(JETTY_CONNECTOR));
  op(OP.astore3);
  // connector.setHost(args[0]); proxy.start()
  op(OP.aload3);
  op(OP.aload0);
  op(OP.iconst0);
  op(OP.aaload);
  op(OP.invokevirtual, pool.methodRef(JETTY_CONNECTOR, 'setHost', '(Ljava/lang/String;)V'));
  op(OP.aload1);
  op(OP.invokevirtual, pool.methodRef(PROXY_SERVER, 'start', '()V'));
  // System.out.println(BOUND_PREFIX.concat(connector.getHost()).concat(":").concat(String.valueOf(connector.getLocalPort())))
  op(OP.getstatic, pool.fieldRef('java/lang/System', 'out', 'Ljava/io/PrintStream;'));
  op(OP.ldcW, pool.string(BOUND_PREFIX));
  op(OP.aload3);
  op(OP.invokevirtual, pool.methodRef(JETTY_CONNECTOR, 'getHost', '()Ljava/lang/String;'));
  op(OP.invokevirtual, concat);
  op(OP.ldcW, pool.string(':'));
  op(OP.invokevirtual, concat);
  op(OP.aload3);
  op(OP.invokevirtual, pool.methodRef(JETTY_CONNECTOR, 'getLocalPort', '()I'));
  op(OP.invokestatic, pool.methodRef('java/lang/String', 'valueOf', '(I)Ljava/lang/String;'));
  op(OP.invokevirtual, concat);
  op(OP.invokevirtual, pool.methodRef('java/io/PrintStream', 'println', '(Ljava/lang/String;)V'));
  op(OP.return);

  const bytecode = Buffer.concat(code);
  const codeAttribute = Buffer.concat([
    u2(4), // max stack (the deepest point holds 3 values)
    u2(4), // max locals: args, proxy, field, connector
    u4(bytecode.length),
    bytecode,
    u2(0), // no exception table
    u2(0), // no attributes (no branch, so no StackMapTable)
  ]);
  const thisClass = pool.classRef(LAUNCHER_CLASS);
  const superClass = pool.classRef('java/lang/Object');
  const mainName = pool.utf8('main');
  const mainDescriptor = pool.utf8('([Ljava/lang/String;)V');
  const codeName = pool.utf8('Code');

  const ACC_PUBLIC = 0x0001;
  const ACC_STATIC = 0x0008;
  const ACC_FINAL = 0x0010;
  const ACC_SUPER = 0x0020;
  return Buffer.concat([
    u4(0xcafebabe),
    u2(0), // minor version
    u2(52), // major version: Java 8
    u2(pool.count),
    pool.bytes(),
    u2(ACC_PUBLIC | ACC_FINAL | ACC_SUPER),
    u2(thisClass),
    u2(superClass),
    u2(0), // interfaces
    u2(0), // fields
    u2(1), // methods: main
    u2(ACC_PUBLIC | ACC_STATIC),
    u2(mainName),
    u2(mainDescriptor),
    u2(1), // its one attribute: Code
    u2(codeName),
    u4(codeAttribute.length),
    codeAttribute,
    u2(0), // class attributes
  ]);
};

/** Reads the address the launcher reported binding (`127.0.0.1:8000`) from DynamoDB Local's output. */
export const boundAddressIn = (output: string): string | undefined => {
  const line = output.split(/\r?\n/).find((candidate) => candidate.startsWith(BOUND_PREFIX));
  return line?.slice(BOUND_PREFIX.length).trim();
};
