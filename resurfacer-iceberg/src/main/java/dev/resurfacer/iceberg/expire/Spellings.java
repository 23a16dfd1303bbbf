package dev.resurfacer.iceberg.expire;

import dev.resurfacer.iceberg.metadata.MetadataWalker;
import dev.resurfacer.storage.StoredFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;

/**
 * Whether a table names each stored file one way only. Engines that expire snapshots by comparing
 * location strings (Iceberg's Spark action) agree with our identity-based expiry exactly when no
 * stored file is referenced under two spellings ({@code file:/x} and {@code /x}, a scheme alias, a
 * {@code ..} or a link); when one is, a kept snapshot's file can look unreferenced to them.
 */
public final class Spellings {
  private Spellings() {}

  /** Up to {@code limit} files referenced under more than one spelling, as "a = b"; empty when every file has one. */
  public static List<String> conflicts(Table table, int limit) {
    table.refresh();
    StoredFile.Resolver resolver = new StoredFile.Resolver();
    Map<String, String> spellingByKey = new HashMap<>();
    List<String> out = new ArrayList<>();
    java.util.function.Consumer<String> check = location -> {
      for (StoredFile f : resolver.resolveAll(location)) {
        String first = spellingByKey.putIfAbsent(f.key(), location);
        if (first != null && !first.equals(location) && out.size() < limit) {
          out.add(first + " = " + location);
        }
      }
    };
    MetadataWalker.withSizes(table.io())
        .walkSnapshots(
            table.snapshots(), table.specs(), (kind, location, size) -> check.accept(location));
    table.statisticsFiles().forEach(f -> check.accept(f.path()));
    table.partitionStatisticsFiles().forEach(f -> check.accept(f.path()));
    return out;
  }
}
