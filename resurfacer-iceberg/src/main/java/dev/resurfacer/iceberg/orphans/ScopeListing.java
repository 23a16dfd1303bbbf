package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.storage.TableMarkers;
import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/** The listing of the scope into the ledger, with what it stepped over. */
final class ScopeListing {
  private final long cutoff;
  private final StoredFile quarantineDir;
  private final Set<String> protectedKeys;
  private final Set<String> candidateKeys;
  long links;
  long protectedSkipped;
  long outsideScope;
  String sampleLink;

  /**
   * @param cutoff files modified after it are too young
   * @param candidateKeys null, or the only files that may be orphans (every other listed file is kept as too young)
   */
  ScopeListing(
      long cutoff, StoredFile quarantineDir, Set<String> protectedKeys, Set<String> candidateKeys) {
    this.cutoff = cutoff;
    this.quarantineDir = quarantineDir;
    this.protectedKeys = protectedKeys;
    this.candidateKeys = candidateKeys;
  }

  void list(
      SupportsPrefixOperations lister,
      boolean nioForLocal,
      Scope.Root root,
      Ledger ledger,
      Consumer<String> warn,
      Progress.Task task) {
    try {
      Consumer<FileInfo> sink = f -> {
        add(f, root, ledger);
        task.advance(1, Math.max(0, f.size()));
      };
      if (nioForLocal && root.isLocal()) {
        LocalListing.Skipped skipped =
            LocalListing.walk(root.localDirectory(), Set.of(Path.of(quarantineDir.path())), sink);
        links += skipped.links();
        if (sampleLink == null) {
          sampleLink = skipped.sampleLink();
        }
      } else {
        // the trailing slash keeps an object-store prefix listing of .../t from also returning
        // .../t2/...
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
    Fences.requireNoOtherTable(root, file);
    if (protectedKeys.contains(file.key())
        || (root.isLocal()
            && f.location().startsWith("file:")
            && TableMarkers.isDatabase(Path.of(f.location().substring(5))))) {
      protectedSkipped++;
      return;
    }
    // an unknown modification time is treated as new: a file that cannot be dated is never old
    // enough
    boolean young = f.createdAtMillis() <= 0
        || f.createdAtMillis() > cutoff
        || (candidateKeys != null && !candidateKeys.contains(file.key()));
    ledger.addListed(file, f.location(), f.size(), f.createdAtMillis(), young);
  }
}
