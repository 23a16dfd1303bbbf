package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.iceberg.catalog.CatalogCensus;
import dev.resurfacer.iceberg.metadata.MetadataWalker;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.storage.Neighbours;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ReachableFileUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Finds the orphans, for a preview and for a run that acts alike: resolves the scope and checks the
 * neighbours, notes the metadata, lists the scope, collects the references of the metadata before and
 * after the listing, applies the {@link Fences} and counts what is referenced, too young and orphaned.
 */
final class CandidateSearch {
  /** At most this many referenced files missing from a listing are dated in storage; more is a partial listing outright. */
  static final int MAX_DATED_MISSING = 10_000;

  private CandidateSearch() {}

  /** @param act whether the plan will be acted on (a quarantine reached through a link is refused before listing) */
  static OrphanPlan find(OrphanRemoval run, boolean act, String name) {
    if (!(run.table instanceof HasTableOperations hasOps)) {
      throw new SafetyRefusal("table " + name + " does not expose its metadata");
    }
    TableOperations ops = hasOps.operations();
    FileIO fileIO = run.seam.io() != null ? run.seam.io() : ops.io();
    boolean nioForLocal = run.seam.io() == null;
    if (!(fileIO instanceof SupportsPrefixOperations lister)) {
      throw new SafetyRefusal(
          "storage cannot be listed through " + fileIO.getClass().getSimpleName());
    }
    List<String> warnings = new ArrayList<>();
    Consumer<String> warn = w -> {
      warnings.add(w);
      run.warningListener.accept(w);
    };
    if (run.olderThan.compareTo(Duration.ofDays(1)) < 0) {
      warn.accept("age guard " + Durations.format(run.olderThan)
          + " is under 1d: files a running writer has not committed yet" + " can be deleted");
    }

    StoredFile.Resolver resolver = new StoredFile.Resolver();
    TableMetadata before = ops.refresh();
    Scope scope = Scope.of(before, resolver);
    Set<String> self = IcebergCensus.identities(
        run.catalog.name(),
        run.identifier.toString(),
        resolver.resolve(before.metadataFileLocation()));
    int checked = neighbours(run, self)
        .requireNothingInside(self, scope.roots().stream().map(Scope.Root::id).toList());

    Quarantine holding = new Quarantine(
        fileIO, locationRoot(scope, run.table), scope.roots().get(0).isLocal());
    StoredFile quarantineDir = resolver.resolve(holding.directory());
    if (run.quarantine && act && scope.roots().get(0).isLocal()) {
      Fences.requireQuarantineNotThroughALink(holding, quarantineDir);
    }
    Set<String> protectedKeys = new HashSet<>();
    (run.fences == null ? List.<String>of() : run.fences.protectedLocations())
        .forEach(l -> protectedKeys.add(resolver.resolve(l).key()));

    long now = run.seam.clock().millis();
    long cutoff = now - run.olderThan.toMillis();
    Inventory inventory = run.inventory;
    if (inventory != null) {
      Fences.requireFreshEnough(inventory, now, run.olderThan);
    }
    ScopeListing listing = new ScopeListing(
        inventory == null ? cutoff : Math.min(cutoff, inventory.takenAtMillis()),
        quarantineDir,
        protectedKeys,
        candidateKeys(run.candidateLocations, warn));
    Ledger ledger = new Ledger(run.memoryLimit);
    try {
      try (Progress.Task task = run.progress.start(
          "remove-orphans " + name + ": list", "files", Progress.UNKNOWN, Progress.UNKNOWN)) {
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
        warn.accept(listing.links
            + " symbolic link(s) in the table's storage were neither followed nor deleted (e.g. "
            + listing.sampleLink + ")");
      }
      TableMetadata after = ops.refresh();
      MetadataWalker walker = MetadataWalker.pathsOnly(fileIO);
      referenceAll(ledger, scope, resolver, walker, before, after, fileIO, run.table);

      Fences.requireNoPrefixMismatch(ledger.prefixMismatches(5));
      if (inventory != null) {
        datedAfterTheListing(ledger, lister, inventory.takenAtMillis(), scope);
      }
      List<String> missingSample = new ArrayList<>();
      Fences.requireCompleteListing(
          ledger.missingFromListing(missingSample, 5).files(), missingSample);
      Map<Category, Long> byCategory = ledger.referencedByCategory();
      Fences.requireEveryCategory(byCategory, !after.snapshots().isEmpty());

      OrphanReport.Files orphans = files(ledger.orphans());
      List<OrphanReport.OrphanFile> shown = new ArrayList<>();
      ledger.forEachOrphan(f -> {
        if (shown.size() < run.show) {
          shown.add(new OrphanReport.OrphanFile(
              f.location(), Math.max(0, f.sizeBytes()), Math.max(0, now - f.createdAtMillis())));
        }
      });
      Map<String, Long> referenced = new LinkedHashMap<>();
      byCategory.forEach((c, n) -> referenced.put(c.label, n));
      OrphanReport found = new OrphanReport(
          name,
          false,
          new OrphanReport.Guard(scope.keys(), Durations.format(run.olderThan), cutoff),
          new OrphanReport.Census(
              files(ledger.listedTotals()),
              files(ledger.keptReachable()),
              files(ledger.keptTooYoung()),
              orphans),
          OrphanReport.Removed.NOTHING,
          new OrphanReport.References(
              referenced, ledger.referencedInScope(), ledger.referencedOutsideScope()),
          new OrphanReport.Fenced(checked, listing.links, listing.protectedSkipped),
          List.copyOf(shown),
          orphans.files() > shown.size(),
          List.copyOf(warnings),
          inventory == null
              ? null
              : new OrphanReport.Listing(
                  inventory.source(), inventory.takenAtMillis(), listing.outsideScope));
      return new OrphanPlan(
          name, ops, fileIO, after, walker, resolver, holding, ledger, now, found);
    } catch (RuntimeException | Error e) {
      ledger.close();
      throw e;
    }
  }

  /**
   * Every file the metadata noted before the listing and the metadata read after it reference, and the
   * version hint: those of the first must be listed (they existed before listing began), those of the
   * second may be newer than the listing.
   */
  private static void referenceAll(
      Ledger ledger,
      Scope scope,
      StoredFile.Resolver resolver,
      MetadataWalker walker,
      TableMetadata before,
      TableMetadata after,
      FileIO fileIO,
      Table table) {
    walker.walk(
        before,
        (kind, location, size) ->
            reference(ledger, scope, resolver, Category.of(kind), location, true));
    if (after != before) {
      walker.walk(
          after,
          (kind, location, size) ->
              reference(ledger, scope, resolver, Category.of(kind), location, false));
    }
    String hint = ReachableFileUtil.versionHintLocation(table);
    if (fileIO.newInputFile(hint).exists()) {
      reference(ledger, scope, resolver, Category.VERSION_HINT, hint, false);
    }
    ledger.seal();
  }

  /** The other tables, of either format, whose storage this table's scope must not overlap. */
  private static Neighbours neighbours(OrphanRemoval run, Set<String> self) {
    if (run.fences != null) {
      return run.fences.neighbours(self);
    }
    try (CatalogCensus census = CatalogCensus.of(run.catalog)) {
      return new Neighbours(IcebergCensus.read(census, self));
    }
  }

  /** Null when any unreferenced file may be an orphan, else the keys of the only ones that may. */
  private static Set<String> candidateKeys(Set<String> candidateLocations, Consumer<String> warn) {
    if (candidateLocations == null) {
      return null;
    }
    Set<String> keys = new HashSet<>();
    for (String c : candidateLocations) {
      try {
        keys.add(StoredFile.parse(c).key());
      } catch (SafetyRefusal unparseable) {
        warn.accept("candidate '" + c + "' is not a location our fences can compare; kept");
      }
    }
    return keys;
  }

  private static OrphanReport.Files files(Ledger.Totals t) {
    return new OrphanReport.Files(t.files(), t.bytes());
  }

  /**
   * A referenced file a listing lacks is expected when it was written after the listing was taken;
   * storage is asked for its date (a prefix listing of exactly that file), and one dated later is
   * recorded as listed (and, being referenced, kept). The rest stay missing: a partial listing.
   */
  private static void datedAfterTheListing(
      Ledger ledger, SupportsPrefixOperations lister, long takenAt, Scope scope) {
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
  static String locationRoot(Scope scope, Table table) {
    StoredFile location = new StoredFile.Resolver().resolve(table.location());
    for (Scope.Root r : scope.roots()) {
      if (r.id().contains(location)) {
        return r.isLocal()
            ? r.listFrom() + location.path().substring(r.id().path().length())
            : table.location();
      }
    }
    return table.location();
  }

  private static void reference(
      Ledger ledger,
      Scope scope,
      StoredFile.Resolver resolver,
      Category category,
      String location,
      boolean mustBeListed) {
    List<StoredFile> files;
    try {
      files = resolver.resolveAll(location);
    } catch (SafetyRefusal r) {
      throw new SafetyRefusal("prefix mismatch: referenced " + category.label + " '" + location
          + "' cannot be compared with storage (" + r.getMessage() + "); nothing was deleted");
    }
    // a '..' after a link names two files (the kernel's and Hadoop's): both are kept, the first
    // must be listed
    for (int i = 0; i < files.size(); i++) {
      StoredFile file = files.get(i);
      boolean inScope = scope.inScope(file);
      ledger.addReachable(file, category, inScope, i == 0 && mustBeListed && inScope);
    }
  }
}
