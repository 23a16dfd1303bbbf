package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.iceberg.metadata.MetadataWalker;
import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.units.Durations;
import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.HashSet;
import java.util.Collection;
import java.util.function.Consumer;
import java.nio.file.Path;
import dev.resurfacer.iceberg.catalog.CatalogCensus;
import dev.resurfacer.storage.Neighbours;
import dev.resurfacer.storage.StorageFences;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.storage.TableMarkers;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ReachableFileUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Deletes (or quarantines) files in a table's storage that no metadata references. {@link #plan()}
 * previews and {@link #execute()} acts; both run the same steps, in this order:
 *
 * <ol>
 *   <li>resolve the scope (location, write.data.path, write.metadata.path) to canonical roots — real
 *       directories on local disk — and refuse if any other table of the census overlaps it or
 *       references a file inside it (see {@link Neighbours});
 *   <li>note the metadata as it is now, then list the scope — listing first means a file committed
 *       during the run is in the metadata read next, so it is referenced, not orphaned. Local storage
 *       is walked with java.nio whatever the FileIO (no process forked, no link followed); the
 *       catalog's own files, the configuration file and the quarantine are never listed;
 *   <li>reload the metadata and collect every referenced file of both versions, each by its
 *       canonical identity ({@link StoredFile});
 *   <li>refuse on a prefix mismatch, a partial listing, or an empty reference category;
 *   <li>orphans = listed, unreferenced, older than the age guard;
 *   <li>just before acting, read the metadata once more and refuse if it now references a candidate;
 *       then delete them, or move them to the quarantine.
 * </ol>
 */
public final class OrphanRemoval {
  public static final Duration DEFAULT_OLDER_THAN = Duration.ofDays(3);
  public static final Duration DEFAULT_QUARANTINE_RETENTION = Duration.ofDays(7);
  static final int DELETE_BATCH = 1000;

  private final Catalog catalog;
  private final TableIdentifier identifier;
  private final Table table;
  private Duration olderThan = DEFAULT_OLDER_THAN;
  private Clock clock = Clock.systemUTC();
  private FileIO io;
  private int show = 100;
  private String memoryLimit = "512MB";
  private StorageFences fences;
  private Set<String> candidateLocations;
  private boolean quarantine;
  private Duration quarantineRetention = DEFAULT_QUARANTINE_RETENTION;
  private Consumer<String> warningListener = w -> { };
  private Progress progress = Progress.NONE;
  private Inventory inventory;

  private OrphanRemoval(Catalog catalog, TableIdentifier identifier, Table table) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.identifier = Objects.requireNonNull(identifier, "identifier");
    this.table = Objects.requireNonNull(table, "table");
  }

  /** The catalog is needed to check that no other table shares this table's storage. */
  public static OrphanRemoval of(Catalog catalog, TableIdentifier identifier, Table table) {
    return new OrphanRemoval(catalog, identifier, table);
  }

  /** The age guard: only files last modified longer ago than this are candidates. */
  public OrphanRemoval olderThan(Duration age) {
    if (age.isNegative()) {
      throw new IllegalArgumentException("older-than must not be negative");
    }
    this.olderThan = age;
    return this;
  }

  /** The clock the age guard measures against (tests and benchmarks). */
  public OrphanRemoval clock(Clock clock) {
    this.clock = clock;
    return this;
  }

  /**
   * Use this FileIO instead of the table's, for listing, reading metadata and deleting. Its own
   * listing is used even for local paths (the table's FileIO is listed with java.nio there).
   */
  public OrphanRemoval io(FileIO io) {
    this.io = io;
    return this;
  }

  /** How many orphans the report lists by name (all are counted). */
  public OrphanRemoval show(int n) {
    this.show = Math.max(0, n);
    return this;
  }

  /** DuckDB's memory limit for the comparison, e.g. {@code 256MB}; beyond it DuckDB spills to temp files. */
  public OrphanRemoval memoryLimit(String limit) {
    this.memoryLimit = limit;
    return this;
  }

  /**
   * The tables of either format to check this one's scope against, and the files never listed nor
   * deleted (a SQLite catalog and its side files, a configuration file). Without it, only the tables
   * of {@link #of}'s catalog are read; pass fences over every catalog you use (several catalog names
   * in one JDBC database, several catalogs, Delta catalogs) so a table registered elsewhere is seen too.
   */
  public OrphanRemoval fences(StorageFences fences) {
    this.fences = Objects.requireNonNull(fences, "fences");
    return this;
  }

  /**
   * Only these files may be removed: another engine's candidates (e.g. Spark's dry-run list). Every
   * fence still applies; a listed file not among them is kept like a file too young to remove (and
   * counted so), a candidate that is referenced, out of scope or behind a link is never listed as an
   * orphan, so {@code orphanFiles} counts the candidates our fences agree on.
   */
  public OrphanRemoval onlyAmong(Collection<String> candidates) {
    this.candidateLocations = Set.copyOf(candidates);
    return this;
  }

  /** Move the candidates to {@code <location>/.resurfacer-quarantine/<run-id>/} instead of deleting them. */
  public OrphanRemoval quarantine(boolean enabled) {
    this.quarantine = enabled;
    return this;
  }

  /** Quarantine runs older than this are deleted by the next {@link #execute()}. */
  public OrphanRemoval quarantineRetention(Duration age) {
    if (age.isNegative()) {
      throw new IllegalArgumentException("quarantine retention must not be negative");
    }
    this.quarantineRetention = age;
    return this;
  }

  /** Called with each warning as soon as it is known — before anything is deleted. */
  public OrphanRemoval onWarning(Consumer<String> listener) {
    this.warningListener = Objects.requireNonNull(listener);
    return this;
  }

  /** Told of the listing as it goes (files and bytes listed) and of the deletes or quarantine moves. */
  public OrphanRemoval progress(Progress progress) {
    this.progress = Objects.requireNonNull(progress);
    return this;
  }

  /**
   * Read the files in storage from this listing (an S3 Inventory report, a plain list) instead of
   * listing the scope. The fences adapt to its age: the age guard must exceed it, a listed file
   * newer than the listing is never a candidate, and a referenced file the listing lacks is a partial
   * listing unless storage dates it after the listing (one prefix listing of that file each).
   * Entries outside the scope are ignored, so one report can serve every table of a bucket.
   */
  public OrphanRemoval listing(Inventory listing) {
    this.inventory = Objects.requireNonNull(listing, "listing");
    return this;
  }

  public OrphanReport plan() {
    return run(false);
  }

  public OrphanReport execute() {
    return run(true);
  }

  /** Puts the files of quarantine run {@code runId} back where they were; with {@code act} false, only says what it would do. */
  public static RestoreReport restore(Table table, String name, String runId, boolean act) {
    Quarantine.requireRunId(runId);
    StoredFile.Resolver resolver = new StoredFile.Resolver();
    Scope scope = Scope.of(((HasTableOperations) table).operations().refresh(), resolver);
    Scope.Root location = scope.roots().get(0);
    Quarantine holding = new Quarantine(table.io(), locationRoot(scope, table), location.isLocal());
    StoredFile quarantineDir = resolver.resolve(holding.directory());
    // a file goes back only to where remove-orphans could have taken it from: the scope, outside the quarantine
    return holding.restore(name, runId, act, from -> {
      try {
        return resolver.resolveAll(from).stream().allMatch(f -> scope.inScope(f) && !quarantineDir.contains(f));
      } catch (SafetyRefusal unreadable) {
        return false;
      }
    });
  }

  private OrphanReport run(boolean act) {
    String name = dev.resurfacer.iceberg.catalog.Catalogs.nameOf(identifier);
    try {
      return runChecked(act, name);
    } catch (SafetyRefusal r) {
      throw new SafetyRefusal("remove-orphans " + name + ": " + r.getMessage());
    }
  }

  private OrphanReport runChecked(boolean act, String name) {
    if (!(table instanceof HasTableOperations hasOps)) {
      throw new SafetyRefusal("table " + name + " does not expose its metadata");
    }
    TableOperations ops = hasOps.operations();
    FileIO fileIO = io != null ? io : ops.io();
    boolean nioForLocal = io == null;
    if (!(fileIO instanceof SupportsPrefixOperations lister)) {
      throw new SafetyRefusal("storage cannot be listed through " + fileIO.getClass().getSimpleName());
    }
    List<String> warnings = new ArrayList<>();
    Consumer<String> warn = w -> {
      warnings.add(w);
      warningListener.accept(w);
    };
    if (olderThan.compareTo(Duration.ofDays(1)) < 0) {
      warn.accept("age guard " + Durations.format(olderThan) + " is under 1d: files a running writer has not committed yet"
          + " can be deleted");
    }

    StoredFile.Resolver resolver = new StoredFile.Resolver();
    TableMetadata before = ops.refresh();
    Scope scope = Scope.of(before, resolver);
    Set<String> self = IcebergCensus.identities(catalog.name(), identifier.toString(),
        resolver.resolve(before.metadataFileLocation()));
    Neighbours others;
    if (fences != null) {
      others = fences.neighbours(self);
    } else {
      try (CatalogCensus census = CatalogCensus.of(catalog)) {
        others = new Neighbours(IcebergCensus.read(census, self));
      }
    }
    int checked = others.requireNothingInside(self, scope.roots().stream().map(Scope.Root::id).toList());

    String locationRoot = locationRoot(scope, table);
    Quarantine holding = new Quarantine(fileIO, locationRoot, scope.roots().get(0).isLocal());
    StoredFile quarantineDir = resolver.resolve(holding.directory());
    if (quarantine && act && scope.roots().get(0).isLocal() && !quarantineDir.equals(StoredFile.parse(holding.directory()))) {
      // a link there would carry the candidates out of the table (and purge, which follows no link, would never reach them)
      throw new SafetyRefusal("quarantine: " + holding.directory() + " is reached through a symbolic link (to " + quarantineDir
          + "); remove the link or run without --quarantine; nothing was moved");
    }
    Set<String> protectedKeys = new HashSet<>();
    (fences == null ? List.<String>of() : fences.protectedLocations()).forEach(l -> protectedKeys.add(resolver.resolve(l).key()));

    long now = clock.millis();
    long cutoff = now - olderThan.toMillis();
    if (inventory != null) {
      requireFreshEnough(inventory, now, olderThan);
    }
    Set<String> candidateKeys = null;
    if (candidateLocations != null) {
      candidateKeys = new HashSet<>();
      for (String c : candidateLocations) {
        try {
          candidateKeys.add(StoredFile.parse(c).key());
        } catch (SafetyRefusal unparseable) {
          warn.accept("candidate '" + c + "' is not a location our fences can compare; kept");
        }
      }
    }
    Listing listing = new Listing(inventory == null ? cutoff : Math.min(cutoff, inventory.takenAtMillis()), quarantineDir,
        protectedKeys, candidateKeys);
    try (Ledger ledger = new Ledger(memoryLimit)) {
      try (Progress.Task task = progress.start("remove-orphans " + name + ": list", "files", Progress.UNKNOWN, Progress.UNKNOWN)) {
        if (inventory != null) {
          task.note(inventory.source());
          listing.listFrom(inventory, scope, ledger, task);
        } else {
          for (Scope.Root root : scope.roots()) {
            task.note(root.id().toString());
            listing.list(lister, nioForLocal, root, ledger, warn, task);
          }
        }
      }
      if (listing.links > 0) {
        warn.accept(listing.links + " symbolic link(s) in the table's storage were neither followed nor deleted (e.g. "
            + listing.sampleLink + ")");
      }
      TableMetadata after = ops.refresh();
      MetadataWalker walker = MetadataWalker.pathsOnly(fileIO);
      walker.walk(before, (kind, location, size) -> reference(ledger, scope, resolver, Category.of(kind), location, true));
      if (after != before) {
        walker.walk(after, (kind, location, size) -> reference(ledger, scope, resolver, Category.of(kind), location, false));
      }
      String hint = ReachableFileUtil.versionHintLocation(table);
      if (fileIO.newInputFile(hint).exists()) {
        reference(ledger, scope, resolver, Category.VERSION_HINT, hint, false);
      }
      ledger.seal();

      Fences.requireNoPrefixMismatch(ledger.prefixMismatches(5));
      if (inventory != null) {
        datedAfterTheListing(ledger, lister, inventory.takenAtMillis(), scope);
      }
      List<String> missingSample = new ArrayList<>();
      Fences.requireCompleteListing(ledger.missingFromListing(missingSample, 5).files(), missingSample);
      Map<Category, Long> byCategory = ledger.referencedByCategory();
      Fences.requireEveryCategory(byCategory, !after.snapshots().isEmpty());

      Ledger.Totals listed = ledger.listedTotals();
      Ledger.Totals reachable = ledger.keptReachable();
      Ledger.Totals young = ledger.keptTooYoung();
      Ledger.Totals orphans = ledger.orphans();
      List<OrphanReport.OrphanFile> shown = new ArrayList<>();
      ledger.forEachOrphan(f -> {
        if (shown.size() < show) {
          shown.add(new OrphanReport.OrphanFile(f.location(), Math.max(0, f.sizeBytes()), Math.max(0, now - f.createdAtMillis())));
        }
      });

      long acted = 0;
      long actedBytes = 0;
      long failed = 0;
      String runId = null;
      long[] purged = {0, 0};
      if (act && orphans.files() > 0) {
        requireUnchangedSince(ops, after, walker, ledger, resolver);
        try (Progress.Task task = progress.start("remove-orphans " + name + (quarantine ? ": quarantine" : ": delete"), "files",
            orphans.files(), orphans.bytes())) {
          if (quarantine) {
            runId = Quarantine.newRunId(now);
            long[] moved = holding.quarantine(name, runId, now, sink -> ledger.forEachOrphan(f -> {
              sink.accept(f);
              task.advance(1, Math.max(0, f.sizeBytes()));
            }));
            acted = moved[0];
            actedBytes = moved[1];
          } else {
            Deleter deleter = new Deleter(fileIO, task);
            ledger.forEachOrphan(deleter::add);
            deleter.flush();
            acted = deleter.deleted;
            actedBytes = deleter.deletedBytes;
            failed = deleter.failed;
          }
        }
      }
      if (act) {
        purged = holding.purgeOlderThan(now - quarantineRetention.toMillis());
      }
      Map<String, Long> referenced = new LinkedHashMap<>();
      byCategory.forEach((c, n) -> referenced.put(c.label, n));
      return new OrphanReport(name, act, scope.keys(), Durations.format(olderThan), cutoff,
          listed.files(), listed.bytes(), reachable.files(), reachable.bytes(), young.files(), young.bytes(),
          orphans.files(), orphans.bytes(),
          quarantine ? 0 : acted, quarantine ? 0 : actedBytes, failed,
          runId, quarantine ? acted : 0, quarantine ? actedBytes : 0, purged[0], purged[1],
          referenced, ledger.referencedInScope(), ledger.referencedOutsideScope(), checked,
          listing.links, listing.protectedSkipped,
          List.copyOf(shown), orphans.files() > shown.size(), List.copyOf(warnings),
          inventory == null ? null : new OrphanReport.Listing(inventory.source(), inventory.takenAtMillis(), listing.outsideScope));
    }
  }

  /** At most this many referenced files missing from a listing are dated in storage; more is a partial listing outright. */
  static final int MAX_DATED_MISSING = 10_000;

  /**
   * A listing describes storage as it was when it was taken, so the age guard has to reach back past
   * that moment: with a guard shorter than the listing's age, a file a writer had just written when
   * the listing was taken would be old enough by now and unreferenced still.
   */
  static void requireFreshEnough(Inventory inventory, long now, Duration olderThan) {
    long age = now - inventory.takenAtMillis();
    if (inventory.takenAtMillis() <= 0) {
      throw new SafetyRefusal("listing " + inventory.source() + " does not say when it was taken; nothing was deleted");
    }
    if (age < -Duration.ofMinutes(5).toMillis()) {
      throw new SafetyRefusal("listing " + inventory.source() + " says it was taken at " + java.time.Instant.ofEpochMilli(inventory.takenAtMillis())
          + ", in the future; nothing was deleted");
    }
    if (olderThan.toMillis() <= age) {
      throw new SafetyRefusal("listing " + inventory.source() + " was taken " + Durations.format(Duration.ofMillis(age))
          + " ago, at or beyond the age guard " + Durations.format(olderThan) + "; raise --older-than above the listing's age"
          + " or use a newer listing; nothing was deleted");
    }
  }

  /**
   * A referenced file a listing lacks is expected when it was written after the listing was taken;
   * storage is asked for its date (a prefix listing of exactly that file), and one dated later is
   * recorded as listed (and, being referenced, kept). The rest stay missing: a partial listing.
   */
  private static void datedAfterTheListing(Ledger ledger, SupportsPrefixOperations lister, long takenAt, Scope scope) {
    List<String> missing = ledger.missingKeys(MAX_DATED_MISSING + 1);
    if (missing.size() > MAX_DATED_MISSING) {
      return; // far more than a listing's age explains: refused below as a partial listing
    }
    for (String key : missing) {
      StoredFile file = StoredFile.parse(key);
      Iterable<FileInfo> found;
      try {
        found = lister.listPrefix(key);
      } catch (RuntimeException e) {
        continue; // cannot be dated: stays missing
      }
      for (FileInfo f : found) {
        StoredFile listed;
        try {
          listed = StoredFile.parse(f.location());
        } catch (SafetyRefusal r) {
          continue;
        }
        if (listed.equals(file) && f.createdAtMillis() > takenAt && scope.inScope(listed)) {
          ledger.addListed(listed, f.location(), f.size(), f.createdAtMillis(), true);
        }
      }
    }
    ledger.seal();
  }

  /** The directory the quarantine lives under: the table location's listing root. */
  private static String locationRoot(Scope scope, Table table) {
    StoredFile location = new StoredFile.Resolver().resolve(table.location());
    for (Scope.Root r : scope.roots()) {
      if (r.id().contains(location)) {
        return r.isLocal() ? r.listFrom() + location.path().substring(r.id().path().length()) : table.location();
      }
    }
    return table.location();
  }

  /**
   * The race window: a commit between the metadata read and the deletes could reference a candidate
   * (a writer that re-adds an old file). Read once more, and refuse if it does.
   */
  private static void requireUnchangedSince(TableOperations ops, TableMetadata after, MetadataWalker walker, Ledger ledger,
      StoredFile.Resolver resolver) {
    TableMetadata latest = ops.refresh();
    if (latest == after || Objects.equals(latest.metadataFileLocation(), after.metadataFileLocation())) {
      return;
    }
    walker.walk(latest, (kind, location, size) -> resolver.resolveAll(location).forEach(ledger::addLateReference));
    List<String> hits = ledger.orphansReferencedLate(5);
    if (!hits.isEmpty()) {
      throw new SafetyRefusal("the table changed during the run and now references " + String.join(", ", hits)
          + "; nothing was deleted");
    }
  }

  /** The listing of the scope into the ledger, with what it stepped over. */
  private static final class Listing {
    private final long cutoff;
    private final StoredFile quarantineDir;
    private final Set<String> protectedKeys;
    private final Set<String> candidateKeys;
    long links;
    long protectedSkipped;
    long outsideScope;
    String sampleLink;

    Listing(long cutoff, StoredFile quarantineDir, Set<String> protectedKeys, Set<String> candidateKeys) {
      this.cutoff = cutoff;
      this.quarantineDir = quarantineDir;
      this.protectedKeys = protectedKeys;
      this.candidateKeys = candidateKeys;
    }

    void list(SupportsPrefixOperations lister, boolean nioForLocal, Scope.Root root, Ledger ledger, Consumer<String> warn,
        Progress.Task task) {
      try {
        Consumer<FileInfo> sink = f -> {
          add(f, root, ledger);
          task.advance(1, Math.max(0, f.size()));
        };
        if (nioForLocal && root.isLocal()) {
          LocalListing.Skipped skipped = LocalListing.walk(root.localDirectory(),
              Set.of(Path.of(quarantineDir.path())), sink);
          links += skipped.links();
          if (sampleLink == null) {
            sampleLink = skipped.sampleLink();
          }
        } else {
          // the trailing slash keeps an object-store prefix listing of .../t from also returning .../t2/...
          String prefix = root.listFrom().endsWith("/") ? root.listFrom() : root.listFrom() + "/";
          lister.listPrefix(prefix).forEach(sink);
        }
      } catch (UncheckedIOException e) {
        if (e.getCause() instanceof FileNotFoundException) {
          warn.accept(root.id() + " does not exist; nothing listed there");
          return;
        }
        throw e;
      }
    }

    /** A listing's entries inside the scope, each under its root; the rest of the bucket is not this table's. */
    void listFrom(Inventory inventory, Scope scope, Ledger ledger, Progress.Task task) {
      inventory.forEach(f -> {
        StoredFile file;
        try {
          file = StoredFile.parse(f.location());
        } catch (SafetyRefusal unparseable) {
          outsideScope++;
          return;
        }
        for (Scope.Root root : scope.roots()) {
          if (root.id().contains(file)) {
            add(f, root, ledger);
            task.advance(1, Math.max(0, f.size()));
            return;
          }
        }
        outsideScope++;
      });
    }

    private void add(FileInfo f, Scope.Root root, Ledger ledger) {
      if (f.location().endsWith("/")) {
        return; // a directory placeholder object, not a file
      }
      StoredFile file;
      try {
        file = StoredFile.parse(f.location());
      } catch (SafetyRefusal r) {
        throw Fences.listedOutsideRoot(f.location(), root.id());
      }
      if (!root.id().contains(file)) {
        throw Fences.listedOutsideRoot(f.location(), root.id());
      }
      if (quarantineDir.contains(file)) {
        return;
      }
      requireNoOtherTable(root, file);
      if (protectedKeys.contains(file.key())
          || (root.isLocal() && f.location().startsWith("file:") && TableMarkers.isDatabase(Path.of(f.location().substring(5))))) {
        protectedSkipped++;
        return;
      }
      // an unknown modification time is treated as new: a file that cannot be dated is never old enough
      boolean young = f.createdAtMillis() <= 0 || f.createdAtMillis() > cutoff
          || (candidateKeys != null && !candidateKeys.contains(file.key()));
      ledger.addListed(file, f.location(), f.size(), f.createdAtMillis(), young);
    }
  }

  /**
   * A listed file that shows a table of its own — a {@code _delta_log} anywhere, Iceberg metadata
   * below the location — means another table lives in the scope, whether a catalog names it or not:
   * every one of its files would look unreferenced here.
   */
  private static void requireNoOtherTable(Scope.Root root, StoredFile file) {
    String relative = file.path().substring(root.id().path().length());
    relative = relative.startsWith("/") ? relative.substring(1) : relative;
    TableMarkers.inKey(relative).ifPresent(found -> {
      boolean own = found.format() == TableMarkers.Format.ICEBERG && found.directory().isEmpty()
          && root.property().equals("location");
      if (!own) {
        String at = found.directory().isEmpty() ? root.id().key() : root.id().key() + "/" + String.join("/", found.directory());
        throw new SafetyRefusal("scope: " + found.format().label + " lives at " + at + ", inside this table's storage"
            + " (found " + file + "); its files would look unreferenced here; nothing was deleted");
      }
    });
  }

  private static void reference(Ledger ledger, Scope scope, StoredFile.Resolver resolver, Category category, String location,
      boolean mustBeListed) {
    List<StoredFile> files;
    try {
      files = resolver.resolveAll(location);
    } catch (SafetyRefusal r) {
      throw new SafetyRefusal("prefix mismatch: referenced " + category.label + " '" + location
          + "' cannot be compared with storage (" + r.getMessage() + "); nothing was deleted");
    }
    // a '..' after a link names two files (the kernel's and Hadoop's): both are kept, the first must be listed
    for (int i = 0; i < files.size(); i++) {
      StoredFile file = files.get(i);
      boolean inScope = scope.inScope(file);
      ledger.addReachable(file, category, inScope, i == 0 && mustBeListed && inScope);
    }
  }

  /** Deletes in batches through the FileIO's bulk API when it has one, else one file at a time. */
  private static final class Deleter {
    private final FileIO io;
    private final Progress.Task task;
    private final List<Ledger.Listed> batch = new ArrayList<>();
    long deleted;
    long deletedBytes;
    long failed;

    Deleter(FileIO io, Progress.Task task) {
      this.io = io;
      this.task = task;
    }

    void add(Ledger.Listed f) {
      batch.add(f);
      if (batch.size() >= DELETE_BATCH) {
        flush();
      }
    }

    void flush() {
      if (batch.isEmpty()) {
        return;
      }
      if (io instanceof SupportsBulkOperations bulk) {
        try {
          bulk.deleteFiles(batch.stream().map(Ledger.Listed::location).toList());
          batch.forEach(this::counted);
        } catch (BulkDeletionFailureException e) {
          // which ones failed is not reported, so ask storage
          for (Ledger.Listed f : batch) {
            if (exists(f.location())) {
              failed++;
            } else {
              counted(f);
            }
          }
        }
      } else {
        for (Ledger.Listed f : batch) {
          try {
            io.deleteFile(f.location());
            counted(f);
          } catch (RuntimeException e) {
            failed++;
          }
        }
      }
      task.advance(batch.size(), batch.stream().mapToLong(f -> Math.max(0, f.sizeBytes())).sum());
      batch.clear();
    }

    private void counted(Ledger.Listed f) {
      deleted++;
      deletedBytes += f.sizeBytes();
    }

    private boolean exists(String location) {
      try {
        return io.newInputFile(location).exists();
      } catch (RuntimeException e) {
        return true;
      }
    }
  }
}
