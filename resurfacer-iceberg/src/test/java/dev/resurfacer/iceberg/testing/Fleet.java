package dev.resurfacer.iceberg.testing;

import dev.resurfacer.iceberg.write.TableWrites;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;

/** Small tables in the shape streaming writers leave them: one tiny file per commit. */
public final class Fleet {
  private Fleet() {}

  /** An {@link Orders} table with {@code appends} single-file commits of 5 rows each, all on one day. */
  public static Table smallFiles(Catalog catalog, String namespace, String name, int appends) {
    Table table = Orders.create(catalog, namespace, name, 2);
    for (int i = 0; i < appends; i++) {
      var append = table.newAppend();
      TableWrites.writeData(table, Orders.rows(i * 5L, 5, 0)).forEach(append::appendFile);
      append.commit();
    }
    return table;
  }
}
