package dev.resurfacer.spark.testing;

import dev.resurfacer.iceberg.testing.ChildJvms;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Spark cluster on loopback: a standalone master, one worker and a Spark Connect server (the
 * application driver, attached to that master), each a child JVM on the classpath the
 * {@code resurfacer-spark-cluster} module resolved at build time (Spark with Connect, the Iceberg Spark
 * runtime and delta-spark with their SQL extensions — Delta's catalog is {@code spark_catalog} — SQLite JDBC). The worker starts executors from
 * {@code SPARK_HOME/jars}, so a SPARK_HOME whose {@code jars} directory links to those jars is laid out
 * first. Spark writes local files through Hadoop's checksummed local file system (Iceberg's Spark reads
 * call {@code FileSystem.getScheme()}, which the raw one does not implement), so {@code .crc} side files
 * appear next to table files, as on any Spark cluster writing to local disk. Catalogs are added as Spark conf ({@code spark.sql.catalog.NAME...}).
 */
public final class SparkCluster implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
  private final Map<String, String> conf = new LinkedHashMap<>();
  private final List<Process> processes = new ArrayList<>();
  private Path dir;
  private int masterPort;
  private int connectPort;
  private int workerCores = 2;
  private String workerMemory = "1g";

  /** Adds Spark conf for the Connect server (the driver), e.g. a catalog's {@code spark.sql.catalog.*} keys. */
  public SparkCluster conf(String key, String value) {
    conf.put(key, value);
    return this;
  }

  /**
   * What the worker offers (default 2 cores, 1g). The Connect server holds 2 cores and a 768m executor
   * for its whole life, so a class that also submits jobs gives the worker room for a second application.
   */
  public SparkCluster worker(int cores, String memory) {
    workerCores = cores;
    workerMemory = memory;
    return this;
  }

  /** An Iceberg JDBC catalog on SQLite, as our CLI's {@code type: jdbc} catalog with the same URI and warehouse. */
  public SparkCluster jdbcCatalog(String name, String uri, String warehouse) {
    conf("spark.sql.catalog." + name, "org.apache.iceberg.spark.SparkCatalog");
    conf("spark.sql.catalog." + name + ".type", "jdbc");
    conf("spark.sql.catalog." + name + ".uri", uri);
    conf("spark.sql.catalog." + name + ".warehouse", warehouse);
    return conf("spark.sql.catalog." + name + ".cache-enabled", "false");
  }

  /**
   * Stops this cluster when the JVM exits: for a cluster that test classes of one test JVM share, each
   * calling {@link #start()} (which starts it once) and none closing it, so later classes find a warm
   * Connect server instead of starting and warming up a cluster of their own.
   */
  public SparkCluster closedAtExit() {
    Runtime.getRuntime().addShutdownHook(new Thread(this::close, "spark-cluster-close"));
    return this;
  }

  public synchronized SparkCluster start() {
    if (!processes.isEmpty()) {
      return this;
    }
    try {
      dir = Files.createTempDirectory("spark-cluster");
      String classpath = ChildJvms.classpath("spark-cluster.classpath", "resurfacer-spark-cluster");
      Path jars = Files.createDirectories(dir.resolve("spark-home/jars"));
      for (String jar : classpath.split(java.io.File.pathSeparator)) {
        Path p = Path.of(jar);
        Files.createSymbolicLink(jars.resolve(p.getFileName()), p);
      }
      Files.createDirectories(dir.resolve("spark-home/conf"));
      masterPort = ChildJvms.freePort();
      connectPort = ChildJvms.freePort();
      start(
          "master",
          classpath,
          "256m",
          List.of(),
          "org.apache.spark.deploy.master.Master",
          "--host",
          "127.0.0.1",
          "--port",
          String.valueOf(masterPort),
          "--webui-port",
          String.valueOf(ChildJvms.freePort()));
      start(
          "worker",
          classpath,
          "256m",
          List.of(),
          "org.apache.spark.deploy.worker.Worker",
          "--host",
          "127.0.0.1",
          "--cores",
          String.valueOf(workerCores),
          "--memory",
          workerMemory,
          "--webui-port",
          String.valueOf(ChildJvms.freePort()),
          "--work-dir",
          dir.resolve("work").toString(),
          masterUrl());
      Map<String, String> driver = driverConf("768m");
      driver.put("spark.app.name", "resurfacer-test-connect");
      driver.put("spark.connect.grpc.binding.address", "127.0.0.1");
      driver.put("spark.connect.grpc.binding.port", String.valueOf(connectPort));
      List<String> props = new ArrayList<>();
      driver.forEach((k, v) -> props.add("-D" + k + "=" + v));
      start(
          "connect",
          classpath,
          "1g",
          props,
          "org.apache.spark.sql.connect.service.SparkConnectServer");
      awaitPort(connectPort, "connect");
      return this;
    } catch (IOException e) {
      close();
      throw new UncheckedIOException(e);
    }
  }

  /** What every application on this cluster runs with: loopback, no UI, small executors, the Iceberg and Delta extensions and the added conf. */
  private Map<String, String> driverConf(String executorMemory) {
    Map<String, String> driver = new LinkedHashMap<>();
    driver.put("spark.master", masterUrl());
    driver.put("spark.driver.host", "127.0.0.1");
    driver.put("spark.driver.bindAddress", "127.0.0.1");
    driver.put("spark.ui.enabled", "false");
    driver.put("spark.executor.memory", executorMemory);
    driver.put("spark.cores.max", "2");
    driver.put("spark.sql.shuffle.partitions", "2");
    // file listings (delta-spark's VACUUM, Spark's partition discovery) otherwise run 10,000 tasks
    // on two cores
    driver.put("spark.sql.sources.parallelPartitionDiscovery.parallelism", "2");
    // delta-spark rebuilds a table's state from its log in this many tasks before each statement
    // (its default: 50)
    driver.put("spark.databricks.delta.snapshotPartitions", "2");
    driver.put("spark.local.dir", dir.resolve("local").toString());
    // both formats on one session: Iceberg through its named catalogs, Delta through spark_catalog
    // (delta.`path`)
    driver.put(
        "spark.sql.extensions",
        "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,io.delta.sql.DeltaSparkSessionExtension");
    driver.put(
        "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog");
    driver.putAll(conf);
    return driver;
  }

  private List<String> java(String heap) {
    return new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + heap,
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC",
        "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/java.util=ALL-UNNAMED",
        "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
        "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
        "--add-opens=java.base/java.net=ALL-UNNAMED",
        "-Dlog4j2.level=WARN"));
  }

  private ProcessBuilder spark(List<String> command) {
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("SPARK_HOME", dir.resolve("spark-home").toString());
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    pb.environment().put("SPARK_LOG_DIR", dir.toString());
    pb.environment().put("SPARK_SCALA_VERSION", "2.13");
    return pb;
  }

  private void start(
      String name,
      String classpath,
      String heap,
      List<String> props,
      String mainClass,
      String... args)
      throws IOException {
    List<String> command = java(heap);
    command.addAll(props);
    command.addAll(List.of("-cp", classpath, mainClass));
    command.addAll(List.of(args));
    ProcessBuilder pb = spark(command);
    pb.redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile());
    processes.add(pb.start());
  }

  /** How a {@link #submit} ended: its exit code, stdout and stderr. */
  public record Submitted(int exitCode, String out, String err) {}

  /**
   * Spark's own spark-submit ({@code org.apache.spark.deploy.SparkSubmit}, what {@code bin/spark-submit}
   * runs) in client mode against this master: the driver is a child JVM on the cluster's classpath (the
   * Iceberg Spark runtime included, as on a real cluster), started in {@code workDir}, with the same
   * catalogs and extensions as the Connect server and a 512m executor.
   */
  public Submitted submit(
      Path workDir, Map<String, String> env, Path jar, String mainClass, String... args) {
    return submit(workDir, env, Map.of(), jar, mainClass, args);
  }

  /** As {@link #submit(Path, Map, Path, String, String...)}, with {@code conf} over this cluster's (e.g. another {@code spark.master}). */
  public Submitted submit(
      Path workDir,
      Map<String, String> env,
      Map<String, String> conf,
      Path jar,
      String mainClass,
      String... args) {
    try {
      String classpath = ChildJvms.classpath("spark-cluster.classpath", "resurfacer-spark-cluster");
      Path tmp = Files.createDirectories(workDir.resolve("tmp"));
      List<String> command = java("1g");
      command.addAll(List.of(
          "-Djava.io.tmpdir=" + tmp,
          "-cp",
          classpath,
          "org.apache.spark.deploy.SparkSubmit",
          "--deploy-mode",
          "client",
          "--class",
          mainClass));
      Map<String, String> driver = driverConf("512m");
      driver.put("spark.app.name", "resurfacer-test-job");
      driver.putAll(conf);
      driver.forEach((k, v) -> command.addAll(List.of("--conf", k + "=" + v)));
      command.add(jar.toString());
      command.addAll(List.of(args));
      Path out = workDir.resolve("submit-stdout.txt");
      Path err = workDir.resolve("submit-stderr.txt");
      ProcessBuilder pb = spark(command)
          .directory(workDir.toFile())
          .redirectOutput(out.toFile())
          .redirectError(err.toFile());
      pb.environment().putAll(env);
      Process p = pb.start();
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new IllegalStateException(
            "spark-submit did not finish in 5 minutes:\n" + Files.readString(err));
      }
      return new Submitted(p.exitValue(), Files.readString(out), Files.readString(err));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void awaitPort(int port, String name) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      for (Process p : processes) {
        if (!p.isAlive()) {
          throw new IllegalStateException(
              "a Spark process exited with " + p.exitValue() + ":\n" + logs());
        }
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
        return;
      } catch (IOException notYet) {
        // still starting
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new IllegalStateException(name + " did not listen within 120s:\n" + logs());
  }

  public String masterUrl() {
    return "spark://127.0.0.1:" + masterPort;
  }

  public String remote() {
    return "sc://127.0.0.1:" + connectPort;
  }

  public Path sparkHome() {
    return dir.resolve("spark-home");
  }

  /** The tail of every process's log, for failure messages. */
  public String logs() {
    StringBuilder b = new StringBuilder();
    for (String name : List.of("master", "worker", "connect")) {
      try {
        String log = Files.readString(dir.resolve(name + ".log"));
        b.append("--- ")
            .append(name)
            .append('\n')
            .append(log.length() > 4000 ? log.substring(log.length() - 4000) : log);
      } catch (IOException e) {
        b.append("--- ").append(name).append(": no log\n");
      }
    }
    return b.toString();
  }

  @Override
  public synchronized void close() {
    // the driver first, so its executors end before the worker does
    for (int i = processes.size() - 1; i >= 0; i--) {
      Process p = processes.get(i);
      p.destroy();
      try {
        if (!p.waitFor(15, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    processes.clear();
  }

  @Override
  public void beforeAll(ExtensionContext ctx) {
    start();
  }

  @Override
  public void afterAll(ExtensionContext ctx) {
    close();
  }
}
