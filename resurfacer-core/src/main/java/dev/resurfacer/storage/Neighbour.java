package dev.resurfacer.storage;

import java.util.Collections;
import java.util.List;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * Another table, of either format, as every delete path must respect it: the directories it owns and
 * every directory holding a file it references, in canonical form ({@link StoredFile#key()}).
 *
 * @param label how a refusal names it ({@code ns.t in catalog 'lake'})
 * @param identities the names it goes by ({@link #table}, {@link #root}, {@link #metadata}); a run
 *     recognises itself when one of its own identities is among them
 * @param roots the directories it owns
 * @param referencedDirs the directories of every file it references, sorted: "is any of them in this
 *     scope" is a range lookup per root
 * @param error why it could not be read; its files are then unknown, and a fence that needs them refuses
 */
public record Neighbour(
    String label,
    Set<String> identities,
    List<StoredFile> roots,
    NavigableSet<String> referencedDirs,
    String error) {
  public Neighbour {
    identities = Set.copyOf(identities);
    roots = List.copyOf(roots);
    referencedDirs = Collections.unmodifiableNavigableSet(new TreeSet<>(referencedDirs));
  }

  public static Neighbour unreadable(String label, Set<String> identities, String error) {
    return new Neighbour(label, identities, List.of(), new TreeSet<>(), error);
  }

  /** The identity of a table registered as {@code table} in catalog {@code catalogName}. */
  public static String table(String catalogName, String table) {
    return "table:" + catalogName + ":" + table;
  }

  /** The identity of the table whose files all live under {@code root} (a Delta table). */
  public static String root(StoredFile root) {
    return "root:" + root.key();
  }

  /** The identity of the Iceberg table whose current metadata file is {@code metadataFile} (one table registered twice). */
  public static String metadata(StoredFile metadataFile) {
    return "metadata:" + metadataFile.key();
  }
}
