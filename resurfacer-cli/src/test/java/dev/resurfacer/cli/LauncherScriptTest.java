package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bin/resurfacer in a copy of the tree, with a fake mvn that records its calls and a fake java. */
class LauncherScriptTest {
  private static final Instant OLD = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant JAR_BUILT = Instant.parse("2026-06-01T00:00:00Z");

  @TempDir
  Path tree;

  Path jar;
  Path source;
  Path mvnLog;

  @BeforeEach
  void copyTheScriptIntoAFakeTree() throws IOException {
    Path bin = Files.createDirectories(tree.resolve("bin"));
    Files.copy(Path.of("..", "bin", "resurfacer"), bin.resolve("resurfacer"));
    executable(bin.resolve("resurfacer"));
    Files.writeString(tree.resolve("pom.xml"), "<project/>");
    Files.writeString(
        Files.createDirectories(tree.resolve("resurfacer-core")).resolve("pom.xml"), "<project/>");
    source =
        Files.createDirectories(tree.resolve("resurfacer-core/src/main/java")).resolve("A.java");
    Files.writeString(source, "class A {}");
    jar = Files.createDirectories(tree.resolve("resurfacer-cli/target")).resolve("resurfacer.jar");
    Files.writeString(jar, "jar");
    mvnLog = tree.resolve("mvn.log");
    Path fakeBin = Files.createDirectories(tree.resolve("fake-bin"));
    Files.writeString(
        fakeBin.resolve("mvn"),
        "#!/usr/bin/env bash\necho \"$@\" >> '" + mvnLog + "'\n" + "touch '" + jar + "'\n");
    Files.writeString(
        fakeBin.resolve("java"),
        "#!/usr/bin/env bash\necho \"java $* duckdb-allocator=${DUCKDB_JE_MALLOC_CONF-unset}\"\n");
    executable(fakeBin.resolve("mvn"));
    executable(fakeBin.resolve("java"));
    for (Path p :
        new Path[] {tree.resolve("pom.xml"), tree.resolve("resurfacer-core/pom.xml"), source}) {
      Files.setLastModifiedTime(p, FileTime.from(OLD));
    }
    Files.setLastModifiedTime(jar, FileTime.from(JAR_BUILT));
  }

  @Test
  void aFreshJarRunsWithoutBuilding() throws Exception {
    Run run = launch("--version");
    assertThat(run.out).contains("java").contains("resurfacer.jar --version");
    assertThat(run.err).isEmpty();
    assertThat(mvnLog).doesNotExist();
  }

  @Test
  void aSourceNewerThanTheJarRebuildsAndSaysWhy() throws Exception {
    Files.setLastModifiedTime(source, FileTime.from(JAR_BUILT.plusSeconds(60)));
    Run run = launch("describe", "shop.orders");
    assertThat(run.err)
        .contains("rebuilding")
        .contains("resurfacer-core/src/main/java/A.java is newer than the jar");
    assertThat(Files.readString(mvnLog)).contains("package");
    assertThat(run.out).contains("resurfacer.jar describe shop.orders");

    Files.delete(mvnLog);
    assertThat(launch("describe", "shop.orders").err)
        .as("the rebuilt jar is fresh")
        .isEmpty();
    assertThat(mvnLog).doesNotExist();
  }

  @Test
  void aNewerPomRebuilds() throws Exception {
    Files.setLastModifiedTime(
        tree.resolve("resurfacer-core/pom.xml"), FileTime.from(JAR_BUILT.plusSeconds(60)));
    assertThat(launch("--help").err).contains("resurfacer-core/pom.xml is newer");
    assertThat(mvnLog).exists();
  }

  @Test
  void aMissingJarIsBuiltOnFirstRun() throws Exception {
    Files.delete(jar);
    assertThat(launch("--help").err).contains("first run only");
    assertThat(mvnLog).exists();
  }

  @Test
  void shortVerbsRunC1OnlyOnTheSerialCollectorAndLongOnesCompileOnlyWhatStaysHot()
      throws Exception {
    String quick = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";
    String hot = "-XX:Tier4InvocationThreshold=50000";
    assertThat(launch("--help").out).contains(quick).doesNotContain(hot);
    assertThat(launch("describe", "shop.orders").out).contains(quick).doesNotContain(hot);
    assertThat(launch("maintain", "--yes").out)
        .doesNotContain("TieredStopAtLevel")
        .doesNotContain("UseSerialGC")
        .contains(hot);
    assertThat(launch("compact", "shop.orders").out)
        .doesNotContain("TieredStopAtLevel")
        .contains(hot)
        .contains("-XX:CompileCommand=quiet")
        .contains("-XX:CompileCommand=MaxNodeLimit,org/apache/parquet/format/*.*,2000")
        .contains("-XX:CompileCommand=MaxNodeLimit,dev/resurfacer/content/ParquetPages$*.*,2000")
        .contains("-XX:CompileCommand=dontinline,dev.resurfacer.content.PageHashes::plain*")
        .contains("-XX:CompileCommand=dontinline,dev.resurfacer.content.ValueHash::mixAll")
        .contains("-XX:CompileCommand=dontinline,dev.resurfacer.content.ValueHash::fold*")
        .contains("-XX:CompileCommand=dontinline,dev.resurfacer.content.PageHashes::foldValues")
        .contains(
            "-XX:CompileCommand=CompileThresholdScaling,dev.resurfacer.content.PageHashes::stringLanes,0.1")
        .contains(
            "-XX:CompileCommand=CompileThresholdScaling,dev.resurfacer.content.RowDigest$Builder::addRows,0.1");
  }

  @Test
  void longVerbsVectorizeLoopsOnlyWhereTheCpuHasAVectorMultiplyOf64Bits() throws Exception {
    Path cpuinfo = Path.of("/proc/cpuinfo");
    boolean emulated = Files.isReadable(cpuinfo)
        && Files.readAllLines(cpuinfo).stream()
            .noneMatch(l -> l.startsWith("flags") && List.of(l.split("\\s+")).contains("avx512dq"));
    String compact = launch("compact", "shop.orders").out;
    if (emulated) {
      assertThat(compact).contains("-XX:-UseSuperWord").contains("-Dresurfacer.vectorLoops=false");
    } else {
      assertThat(compact).doesNotContain("UseSuperWord").doesNotContain("vectorLoops");
    }
    assertThat(launch("--help").out).doesNotContain("UseSuperWord");
  }

  @Test
  void runsThatEndKeepDuckDbsFreedPagesAndServeAndTheCallersOwnSettingDoNot() throws Exception {
    String keep = "duckdb-allocator=dirty_decay_ms:-1,muzzy_decay_ms:-1";
    assertThat(launch("compact", "shop.orders", "--yes").out).contains(keep);
    assertThat(launch("maintain", "--yes").out).contains(keep);
    assertThat(launch("serve").out).contains("duckdb-allocator=unset");
    assertThat(launch(Map.of("DUCKDB_JE_MALLOC_CONF", ""), "compact", "shop.orders").out)
        .contains("duckdb-allocator=\n")
        .doesNotContain("dirty_decay_ms");
    assertThat(launch(Map.of("DUCKDB_JE_MALLOC_CONF", "narenas:2"), "compact", "shop.orders").out)
        .contains("duckdb-allocator=narenas:2");
  }

  @Test
  void aCollectorChosenInTheJavaOptionsIsTheOnlyOneAShortVerbNames() throws Exception {
    String out = launch(Map.of("RESURFACER_JAVA_OPTS", "-Xmx1g -XX:+UseParallelGC"), "--help").out;
    assertThat(out).contains("-XX:+UseParallelGC").doesNotContain("UseSerialGC");
    assertThat(out).contains("-XX:TieredStopAtLevel=1");
  }

  @Test
  void shortVerbsMapTheirArchiveAndLongOnesTheDemoArchiveEachTrainedOnce() throws Exception {
    Path trainings = tree.resolve("trainings.log");
    // a java that makes the archive it is asked for, as a real training run does at exit
    Files.writeString(
        tree.resolve("fake-bin/java"),
        "#!/usr/bin/env bash\n"
            + "for a in \"$@\"; do case \"$a\" in -XX:ArchiveClassesAtExit=*) echo \"$*\" >> '"
            + trainings + "';"
            + " touch \"${a#-XX:ArchiveClassesAtExit=}\";; esac; done\n"
            + "echo \"java $*\"\n");

    assertThat(launch("--help").out)
        .contains("-XX:SharedArchiveFile=" + jar.toString().replace(".jar", "-quick.jsa"));
    assertThat(Files.readString(trainings))
        .contains(" __train-archive ")
        .doesNotContain(" --long ");
    assertThat(launch("compact", "shop.orders", "--yes").out)
        .contains("-XX:SharedArchiveFile=" + jar.toString().replace(".jar", ".jsa"));
    assertThat(Files.readString(trainings)).contains(" __train-archive --long ");

    Files.delete(trainings);
    launch("--help");
    launch("compact", "shop.orders", "--yes");
    assertThat(trainings).as("each archive is made once per build").doesNotExist();
  }

  private record Run(int exitCode, String out, String err) {}

  private Run launch(String... args) throws IOException, InterruptedException {
    return launch(Map.of(), args);
  }

  private Run launch(Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    String[] command = new String[args.length + 1];
    command[0] = tree.resolve("bin/resurfacer").toString();
    System.arraycopy(args, 0, command, 1, args.length);
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("PATH", tree.resolve("fake-bin") + ":/usr/bin:/bin");
    pb.environment().remove("DUCKDB_JE_MALLOC_CONF");
    pb.environment().putAll(env);
    Path err = tree.resolve("stderr.txt");
    pb.redirectError(err.toFile());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int code = p.waitFor();
    Run run = new Run(code, out, Files.readString(err));
    assertThat(run.exitCode).as(run.err).isZero();
    return run;
  }

  private static void executable(Path p) throws IOException {
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
