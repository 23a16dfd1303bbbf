package dev.resurfacer.trino;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.scan.DeletionVectorRef;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.TableStorage;
import dev.resurfacer.delta.vacuum.DeltaVacuum;
import dev.resurfacer.delta.vacuum.VacuumOptions;
import dev.resurfacer.delta.vacuum.VacuumPlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.maintain.Vacuum;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Delta vacuum as Trino's {@code CALL <catalog>.system.vacuum(schema, table, retention)}, which has no
 * dry run. Our own vacuum plan runs first, with every fence (the table's retention, hidden folders,
 * links, the log's reach); then what Trino could delete is over-approximated — every regular file
 * under the table outside {@code _delta_log} that the current version does not reference and that
 * is older than the cutoff — and Trino runs only when each of those is in our plan. Its floor
 * {@code delta.vacuum.min-retention} is read first, tables with deletion vectors (which Trino's
 * vacuum refuses) are refused up front, and the retention passed is widened so that Trino's cutoff,
 * taken from its own clock, is never later than ours ({@link TrinoClock}). Afterwards every file
 * gone must be one our plan named.
 *
 * <p>Trino releases before {@value #ESCAPED_PATHS_FIXED_IN} compare listed files with the log's
 * paths without URI escaping, so their vacuum deletes live files whose paths need it
 * (trinodb/trino#24872): on such a server a table with any such live path is refused up front.
 */
record TrinoDeltaVacuum(TrinoStatements trino)
    implements OperationExecutor.Body<Vacuum, DeltaTable> {
  private static final int SHOWN = 5;
  /** The first Trino release whose Delta vacuum keeps live files with escaped paths (trinodb/trino#24872). */
  static final int ESCAPED_PATHS_FIXED_IN = 470;

  private static final Pattern RELEASE = Pattern.compile("^(\\d+)(?:[^\\d].*)?$");
  /** Path characters no URI escaping changes; any other (a space, %, non-ASCII, ...) is what older releases mishandle. */
  private static final Pattern PLAIN_PATH = Pattern.compile("[A-Za-z0-9._~/=-]*");

  @Override
  public Step execute(Vacuum op, DeltaTable t, Mode mode) {
    TrinoTableName name = DeltaOnTrino.name(trino, t);
    VacuumPlan plan = DeltaVacuum.plan(t, VacuumOptions.of(op), Clock.systemUTC());
    Duration retention = Duration.ofMillis(plan.retentionMs());
    TrinoFloors.DELTA_VACUUM.check(trino, retention);
    if (KernelInternals.protocol(t.latest()).writerFeatures().contains("deletionVectors")) {
      throw new SafetyRefusal("Trino's vacuum refuses " + t.name()
          + ": the table has the deletionVectors writer feature,"
          + " which Trino's Delta connector does not vacuum; use --engine local");
    }
    escapingRefusal(trino.value("version", "SELECT version()"), t.name(), livePaths(t))
        .ifPresent(why -> {
          throw new SafetyRefusal(why);
        });
    DeltaOnTrino.sameTable(trino, t, t.latest());
    Set<StoredFile> ours =
        plan.deletions().stream().map(VacuumPlan.Candidate::file).collect(Collectors.toSet());
    List<StoredFile> trinos = trinoCouldDelete(t, plan.cutoffMs());
    List<StoredFile> refused = trinos.stream().filter(p -> !ours.contains(p)).toList();
    Map<String, Long> metrics = new LinkedHashMap<>();
    metrics.put("listed_files", plan.listedFiles());
    metrics.put("files_to_delete", (long) plan.deletions().size());
    metrics.put("trino_candidates", (long) trinos.size());
    if (!refused.isEmpty()) {
      throw new SafetyRefusal(
          "Trino's vacuum could delete " + refused.size() + " file(s) our vacuum keeps, e.g. "
              + examples(refused)
              + " (Trino has no dry run and does not skip what our fences skip); use --engine local");
    }
    String rule = "retention " + Durations.format(retention);
    if (plan.deletions().isEmpty()) {
      return Step.nothingToDo(
          "no file past the " + rule + " among " + plan.listedFiles() + " listed", metrics);
    }
    TrinoClock clock = TrinoClock.measure(trino, "vacuum");
    String what = plan.deletions().size() + " file(s) (" + ByteSizes.format(plan.bytes()) + ")";
    if (mode == Mode.PREVIEW) {
      return Step.previewed(
          "Trino's vacuum would delete at most " + what + ", " + rule
              + ", each one our own vacuum deletes too",
          metrics);
    }
    Set<StoredFile> before = listed(t);
    trino.execute(
        "vacuum",
        "CALL " + TrinoTableName.quote(name.catalog()) + ".system.vacuum("
            + TrinoTableName.literal(name.schema()) + ", " + TrinoTableName.literal(name.table())
            + ", " + TrinoTableName.literal(clock.threshold(plan.cutoffMs()) + "ms") + ")");
    Set<StoredFile> gone = new HashSet<>(before);
    gone.removeAll(listed(t));
    Set<StoredFile> unexpected = gone.stream()
        .filter(p -> !ours.contains(p))
        .collect(Collectors.toCollection(
            () -> new TreeSet<>(Comparator.comparing(StoredFile::toString))));
    if (!unexpected.isEmpty()) {
      throw new IllegalStateException("Trino's vacuum deleted " + unexpected.size()
          + " file(s) our plan did not name, e.g. " + examples(unexpected));
    }
    metrics.put("deleted_files", (long) gone.size());
    return Step.done(
        "Trino's vacuum deleted " + gone.size() + " file(s), " + rule
            + "; every one was in our own vacuum's plan (" + what + ")",
        metrics);
  }

  /**
   * Why a Trino server of {@code trinoVersion} must not vacuum a table with these live paths: a release
   * before {@value #ESCAPED_PATHS_FIXED_IN} (or one whose version cannot be read) and a path that URI
   * escaping changes; empty otherwise.
   *
   * @param livePaths the live files' paths under the table root, unescaped
   */
  static Optional<String> escapingRefusal(
      String trinoVersion, String table, List<String> livePaths) {
    Matcher m = RELEASE.matcher(trinoVersion == null ? "" : trinoVersion.strip());
    if (m.matches()
        && m.group(1).length() < 9
        && Integer.parseInt(m.group(1)) >= ESCAPED_PATHS_FIXED_IN) {
      return Optional.empty();
    }
    List<String> escaped = livePaths.stream()
        .filter(p -> !PLAIN_PATH.matcher(p).matches())
        .sorted()
        .toList();
    if (escaped.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of("Trino " + trinoVersion
        + "'s vacuum deletes live files whose paths need URI escaping (trinodb/trino#24872,"
        + " fixed in " + ESCAPED_PATHS_FIXED_IN + ") and " + table + " has " + escaped.size()
        + ", e.g. "
        + escaped.stream().limit(SHOWN).collect(Collectors.joining(", "))
        + "; upgrade Trino or use --engine local");
  }

  /** The live data files' and deletion vectors' paths under the table root, unescaped. */
  private static List<String> livePaths(DeltaTable t) {
    String root = t.storage().root().path();
    List<String> out = new ArrayList<>();
    for (LiveFile f : LiveFiles.of(t, t.latest())) {
      out.add(under(root, f.file()));
      f.deletionVector().flatMap(DeletionVectorRef::file).ifPresent(dv -> out.add(under(root, dv)));
    }
    return out;
  }

  private static String under(String root, StoredFile file) {
    return file.path().startsWith(root + "/")
        ? file.path().substring(root.length() + 1)
        : file.path();
  }

  /**
   * Files under the table outside {@code _delta_log}, older than the cutoff, that the current version
   * does not reference, listed through the table's storage (local disk or S3).
   */
  static List<StoredFile> trinoCouldDelete(DeltaTable t, long cutoffMillis) {
    Set<StoredFile> live = new HashSet<>();
    for (LiveFile f : LiveFiles.of(t, t.latest())) {
      live.add(f.file());
      f.deletionVector().flatMap(DeletionVectorRef::file).ifPresent(live::add);
    }
    return entries(t).stream()
        .filter(e -> !live.contains(e.file()) && e.modificationTime() < cutoffMillis)
        .map(TableStorage.Entry::file)
        .sorted(Comparator.comparing(StoredFile::toString))
        .toList();
  }

  /** The first few of {@code files}, in their order, for a message. */
  private static String examples(Collection<StoredFile> files) {
    return files.stream().limit(SHOWN).map(StoredFile::toString).collect(Collectors.joining(", "));
  }

  /** Every file (and link) under the table root outside {@code _delta_log}, links not followed. */
  private static Set<StoredFile> listed(DeltaTable t) {
    return entries(t).stream().map(TableStorage.Entry::file).collect(Collectors.toSet());
  }

  private static List<TableStorage.Entry> entries(DeltaTable t) {
    try {
      return t.storage().listOutsideLog();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot list " + t.storage().root() + ": " + e.getMessage(), e);
    }
  }
}
