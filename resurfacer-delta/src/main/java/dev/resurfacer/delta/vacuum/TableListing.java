package dev.resurfacer.delta.vacuum;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.table.TableStorage;
import dev.resurfacer.storage.StoredFile;
import java.util.List;

/**
 * The rules of vacuum's listing (the walk itself is the storage's,
 * {@link TableStorage#listForVacuum}): names Delta treats as hidden are left out, as Delta's VACUUM
 * does — a name starting with {@code _} or {@code .} (so {@code _delta_log}, {@code _change_data}
 * and Hadoop's {@code .crc} side files), unless it is a partition directory {@code <column>=...} of
 * a partition column whose name starts that way. Unlike Delta, {@code _change_data} and
 * {@code _delta_index} are never entered: their files are kept. Links are never followed.
 */
public final class TableListing {
  private TableListing() {}

  public static boolean hidden(String name, List<String> partitionColumns) {
    if (!(name.startsWith("_") || name.startsWith("."))) {
      return false;
    }
    return partitionColumns.stream().noneMatch(c -> name.startsWith(c + "="));
  }

  /**
   * Whether any component of {@code file} below the root is hidden: such a file is never listed.
   * {@code file} is a resolved identity inside {@code root}, so a file a log reaches through a
   * hidden-name link ({@code _alias -> day=1}) is judged where it lies, not by the link's name.
   */
  static boolean underHidden(StoredFile root, StoredFile file, List<String> partitionColumns) {
    String rel = file.path().substring(root.path().length());
    for (String part : rel.split("/")) {
      if (!part.isEmpty() && hidden(part, partitionColumns)) {
        return true;
      }
    }
    return false;
  }

  public static SafetyRefusal nestedTable(StoredFile dir) {
    return new SafetyRefusal("another table lives inside this table's directory at " + dir
        + "; vacuum would delete its files as unreferenced; nothing is deleted");
  }

  /** Iceberg metadata beside the log (a UniForm table, or an Iceberg table written into the same directory). */
  public static SafetyRefusal icebergAtRoot(StoredFile root) {
    return new SafetyRefusal("an Iceberg table shares this table's directory " + root
        + " (metadata/ holds Iceberg metadata):"
        + " its metadata and manifests would look unreferenced to vacuum; nothing is deleted");
  }

  public static SafetyRefusal partial(String where, Exception e) {
    return new SafetyRefusal("the listing of the table is incomplete (" + where + ": "
        + e.getMessage() + "); nothing is deleted from a partial listing");
  }
}
