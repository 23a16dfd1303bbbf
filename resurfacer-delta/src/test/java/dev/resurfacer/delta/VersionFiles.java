package dev.resurfacer.delta;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.scan.DeletionVectorRef;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * The files each version of a local table needs, found the way delta-spark opens them — the log's
 * path read as a URI, a relative one against the directory the table was opened by, {@code ..}
 * taken back as text (Hadoop's {@code Path}) — and then by real path: the oracle vacuum is checked
 * against, independent of the production code's identities.
 */
public final class VersionFiles {
  private VersionFiles() {}

  /** The real paths of the data files and deletion-vector files of {@code version}. */
  public static Set<Path> of(DeltaTable table, long version) {
    Set<Path> out = new HashSet<>();
    for (LiveFile f : LiveFiles.of(table, table.atVersion(version))) {
      out.add(opened(table.localRoot(), f.logPath()));
      f.deletionVector()
          .filter(dv -> !dv.storageType().equals("i"))
          .map(dv -> opened(table.localRoot(), dvPath(dv)))
          .ifPresent(out::add);
    }
    return out;
  }

  /** The files some version needs but the latest does not: what a vacuum at zero retention may delete. */
  public static Set<Path> removedForGood(DeltaTable table) {
    long latest = table.latest().getVersion();
    Set<Path> out = new HashSet<>();
    for (long v = 0; v < latest; v++) {
      out.addAll(of(table, v));
    }
    out.removeAll(of(table, latest));
    return out;
  }

  public static void assertEveryFileOfEveryVersionExists(DeltaTable table) {
    assertEveryFileOfEveryVersionExists(table, Set.of());
  }

  /** Every file of every version still in the log exists, except those {@code removedForGood} names. */
  public static void assertEveryFileOfEveryVersionExists(
      DeltaTable table, Set<Path> removedForGood) {
    Set<Path> missing = new TreeSet<>();
    for (long v = 0; v <= table.latest().getVersion(); v++) {
      for (Path p : of(table, v)) {
        if (!Files.isRegularFile(p) && !removedForGood.contains(p)) {
          missing.add(p);
        }
      }
    }
    assertThat(missing).isEmpty();
  }

  private static String dvPath(DeletionVectorRef dv) {
    return dv.storageType().equals("u")
        ? KernelInternals.uuidDeletionVectorRelativePath(dv.pathOrInlineDv())
        : dv.pathOrInlineDv();
  }

  static Path opened(Path tableDir, String logPath) {
    String p = URI.create(logPath).getPath();
    return real((p.startsWith("/") ? Path.of(p) : tableDir.resolve(p)).normalize());
  }

  private static Path real(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException gone) {
      return p.getParent() == null ? p : real(p.getParent()).resolve(p.getFileName());
    }
  }
}
