package dev.resurfacer.iceberg.expire;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.expire.ExpireResult.CategoryTotal;
import dev.resurfacer.iceberg.expire.ExpireResult.ExpiredSnapshot;
import dev.resurfacer.iceberg.expire.ExpireResult.ReclaimedFile;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.storage.StoredFile;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Expires snapshots with Iceberg core's {@link ExpireSnapshots}: retention is core's, not ours.
 * {@link #plan} configures and applies core's update; {@link #execute} commits that same update,
 * and the files the plan lists are the only ones it is allowed to delete.
 */
public final class SnapshotExpiry {
  private SnapshotExpiry() {}

  /**
   * What an expiry would do now: the snapshots core's applied {@code update} expires, the refs past
   * their max age, and the files only those snapshots reach. {@link #execute} commits {@code update}
   * once, so a plan is executed at most once.
   */
  public record Plan(
      String name,
      Table table,
      long cutoff,
      int retainLast,
      ExpireSnapshots update,
      List<Snapshot> expiring,
      List<ExpiredSnapshot> snapshots,
      List<String> agedRefs,
      Map<String, ReclaimedFile> files,
      StoredFile.Resolver resolver) {
    /** The plan as a result that committed and deleted nothing. */
    public ExpireResult preview() {
      return result(
          name,
          false,
          cutoff,
          retainLast,
          snapshots,
          agedRefs,
          files.values(),
          List.of(),
          List.of(),
          List.of());
    }
  }

  /**
   * The other tables of every format an expiry must not take files from, and this table's own
   * identities among them; read only when the expiry has files to delete.
   */
  public record OtherTables(
      java.util.function.Supplier<dev.resurfacer.storage.Neighbours> neighbours,
      Set<String> self) {}

  /** What {@link #execute} would do now. Reads metadata; commits nothing and deletes nothing. */
  public static Plan plan(String name, Table table, ExpireOptions options) {
    return plan(name, table, options, null);
  }

  /**
   * As {@link #plan(String, Table, ExpireOptions)}, refused before anything is committed when another
   * table of {@code others} references a file in the directory of one the expiry would delete.
   */
  public static Plan plan(String name, Table table, ExpireOptions options, OtherTables others) {
    table.refresh();
    Map<String, String> props = table.properties();
    long maxAgeMs = options.olderThan() != null
        ? options.olderThan().toMillis()
        : PropertyUtil.propertyAsLong(
            props,
            TableProperties.MAX_SNAPSHOT_AGE_MS,
            TableProperties.MAX_SNAPSHOT_AGE_MS_DEFAULT);
    int retainLast = options.retainLast() != null
        ? options.retainLast()
        : PropertyUtil.propertyAsInt(
            props,
            TableProperties.MIN_SNAPSHOTS_TO_KEEP,
            TableProperties.MIN_SNAPSHOTS_TO_KEEP_DEFAULT);
    long cutoff = System.currentTimeMillis() - maxAgeMs;

    ExpireSnapshots update = configure(table, options, cutoff);
    // core fixes its clock when the update is created; reading ours afterwards makes our ref ages
    // at least as old as core's, so every ref core would drop is one we see
    List<String> agedRefs = refsPastMaxAge(table, System.currentTimeMillis());
    if (!agedRefs.isEmpty() && !options.expireRefs()) {
      throw new SafetyRefusal("expiry would drop " + String.join(", ", agedRefs)
          + " (past max-ref-age); pass --expire-refs to allow dropping tags and branches");
    }

    List<Snapshot> expiring = applyOrExplain(update, name);
    Set<Long> expiringIds = new HashSet<>();
    expiring.forEach(s -> expiringIds.add(s.snapshotId()));
    List<Snapshot> retained = new ArrayList<>();
    table.snapshots().forEach(s -> {
      if (!expiringIds.contains(s.snapshotId())) {
        retained.add(s);
      }
    });
    StoredFile.Resolver resolver = new StoredFile.Resolver();
    Map<String, ReclaimedFile> previewed =
        ReachableFiles.onlyReachableFrom(table, expiring, retained, resolver);
    if (others != null && !previewed.isEmpty()) {
      List<StoredFile> candidates = new ArrayList<>();
      previewed.keySet().forEach(p -> candidates.addAll(resolver.resolveAll(p)));
      try {
        others
            .neighbours()
            .get()
            .requireNoneShared(others.self(), candidates, "expiry would delete");
      } catch (SafetyRefusal r) {
        throw new SafetyRefusal("expire " + name + ": " + r.getMessage() + "; nothing was expired");
      }
    }
    List<ExpiredSnapshot> snapshots = expiring.stream()
        .sorted(Comparator.comparingLong(Snapshot::timestampMillis))
        .map(s -> new ExpiredSnapshot(s.snapshotId(), s.timestampMillis(), s.operation()))
        .toList();
    return new Plan(
        name,
        table,
        cutoff,
        retainLast,
        update,
        List.copyOf(expiring),
        snapshots,
        List.copyOf(agedRefs),
        Collections.unmodifiableMap(previewed),
        resolver);
  }

  /** Expires, then deletes exactly the files the plan computed (never more). */
  public static ExpireResult execute(Plan plan) {
    return execute(plan, Progress.NONE);
  }

  /** As {@link #execute(Plan)}, telling {@code progress} of the deletes as they go. */
  public static ExpireResult execute(Plan plan, Progress progress) {
    String name = plan.name();
    Table table = plan.table();
    ExpireSnapshots update = plan.update();
    List<Snapshot> expiring = plan.expiring();
    Map<String, ReclaimedFile> previewed = plan.files();
    StoredFile.Resolver resolver = plan.resolver();
    Set<String> refsBefore = new HashSet<>(table.refs().keySet());
    Set<Integer> specsBefore = new HashSet<>(table.specs().keySet());
    Set<Integer> schemasBefore = new HashSet<>(table.schemas().keySet());
    Set<String> deleted = ConcurrentHashMap.newKeySet();
    Set<String> offered = ConcurrentHashMap.newKeySet();
    // Naming the previewed snapshots makes core clean up by reachability (the preview's own
    // definition) instead of incrementally, which would keep files removed by retained snapshots.
    expiring.forEach(s -> update.expireSnapshotId(s.snapshotId()));
    // core's cleanup only collects here; the deletes happen below, against the metadata as it is
    // then
    update.deleteWith(offered::add);
    try {
      update.commit();
    } catch (IllegalArgumentException | ValidationException e) {
      throw new SafetyRefusal(e.getMessage());
    }
    table.refresh();
    // the race window: a commit since the preview may reference a candidate again, under any
    // spelling
    List<Snapshot> now = new ArrayList<>();
    table.snapshots().forEach(now::add);
    Set<String> stillKept = ReachableFiles.keptKeys(table, now, resolver);
    // and every statistics file the metadata names now: one may have been attached to a retained
    // snapshot meanwhile
    table.statisticsFiles().forEach(f -> ReachableFiles.keep(stillKept, resolver, f.path()));
    table
        .partitionStatisticsFiles()
        .forEach(f -> ReachableFiles.keep(stillKept, resolver, f.path()));
    long previewedBytes =
        previewed.values().stream().mapToLong(ReclaimedFile::bytes).sum();
    try (Progress.Task task =
        progress.start("expire " + name + ": delete", "files", previewed.size(), previewedBytes)) {
      for (String path : offered) {
        // the fence: nothing outside the preview is ever deleted, whatever core computes
        if (previewed.containsKey(path) && !ReachableFiles.isKept(stillKept, resolver, path)) {
          try {
            table.io().deleteFile(path);
            deleted.add(path);
          } catch (RuntimeException e) {
            // the commit stands; a file that could not be deleted is reported in not_deleted and
            // swept later
          }
          task.advance(1, previewed.get(path).bytes());
        }
      }
    }

    List<ReclaimedFile> done = new ArrayList<>();
    List<String> notDeleted = new ArrayList<>();
    previewed.forEach((path, file) -> {
      if (deleted.contains(path)) {
        done.add(file);
      } else {
        notDeleted.add(path);
      }
    });
    List<String> refsDropped = new ArrayList<>(new TreeSet<>(refsBefore));
    refsDropped.removeAll(table.refs().keySet());
    specsBefore.removeAll(table.specs().keySet());
    schemasBefore.removeAll(table.schemas().keySet());
    return result(
        name,
        true,
        plan.cutoff(),
        plan.retainLast(),
        plan.snapshots(),
        refsDropped,
        done,
        notDeleted,
        new ArrayList<>(new TreeSet<>(specsBefore)),
        new ArrayList<>(new TreeSet<>(schemasBefore)));
  }

  private static ExpireSnapshots configure(Table table, ExpireOptions options, long cutoff) {
    ExpireSnapshots update;
    try {
      update = table.expireSnapshots();
    } catch (ValidationException e) {
      throw new SafetyRefusal(
          e.getMessage()); // gc.enabled=false: files may be shared with other tables
    }
    update
        .expireOlderThan(cutoff)
        .cleanupLevel(ExpireSnapshots.CleanupLevel.ALL)
        .cleanExpiredMetadata(true);
    if (options.retainLast() != null) {
      update.retainLast(options.retainLast());
    }
    for (long id : options.snapshotIds()) {
      if (table.snapshot(id) == null) {
        throw new UsageException("snapshot " + id + " does not exist in " + table.name());
      }
      update.expireSnapshotId(id);
    }
    return update;
  }

  private static List<Snapshot> applyOrExplain(ExpireSnapshots update, String name) {
    try {
      return update.apply();
    } catch (IllegalArgumentException e) {
      // e.g. an explicitly named snapshot is still the head of a tag or branch
      throw new SafetyRefusal(e.getMessage());
    }
  }

  /** Non-main refs whose snapshot is older than the ref's own max-ref-age or the table's. */
  static List<String> refsPastMaxAge(Table table, long now) {
    long tableMax = PropertyUtil.propertyAsLong(
        table.properties(), TableProperties.MAX_REF_AGE_MS, TableProperties.MAX_REF_AGE_MS_DEFAULT);
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, SnapshotRef> e : table.refs().entrySet()) {
      SnapshotRef ref = e.getValue();
      Snapshot snapshot = table.snapshot(ref.snapshotId());
      if (e.getKey().equals(SnapshotRef.MAIN_BRANCH) || snapshot == null) {
        continue;
      }
      long max = ref.maxRefAgeMs() != null ? ref.maxRefAgeMs() : tableMax;
      if (now - snapshot.timestampMillis() > max) {
        out.add(e.getKey());
      }
    }
    out.sort(null);
    return out;
  }

  private static ExpireResult result(
      String name,
      boolean committed,
      long cutoff,
      int retainLast,
      List<ExpiredSnapshot> snapshots,
      List<String> refs,
      Iterable<ReclaimedFile> files,
      List<String> notDeleted,
      List<Integer> specs,
      List<Integer> schemas) {
    Map<String, long[]> sums = new LinkedHashMap<>();
    ReachableFiles.CATEGORIES.forEach(c -> sums.put(c, new long[2]));
    List<ReclaimedFile> list = new ArrayList<>();
    long count = 0;
    long bytes = 0;
    for (ReclaimedFile f : files) {
      long[] sum = sums.get(f.category());
      sum[0]++;
      sum[1] += f.bytes();
      count++;
      bytes += f.bytes();
      list.add(f);
    }
    Map<String, CategoryTotal> byCategory = new LinkedHashMap<>();
    sums.forEach((c, s) -> byCategory.put(c, new CategoryTotal(s[0], s[1])));
    return new ExpireResult(
        name,
        committed,
        cutoff,
        retainLast,
        snapshots,
        List.copyOf(refs),
        count,
        bytes,
        byCategory,
        list,
        List.copyOf(notDeleted),
        specs,
        schemas);
  }
}
