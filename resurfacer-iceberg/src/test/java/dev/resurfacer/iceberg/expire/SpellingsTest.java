package dev.resurfacer.iceberg.expire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file named two ways is what string-comparing expiry gets wrong; Spellings finds it, and only it. */
class SpellingsTest {
  static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @TempDir
  Path dir;

  @Test
  void aFileReferencedAsFileUriAndAsPlainPathIsAConflictAndOneSpellingIsNot() throws Exception {
    JdbcCatalog catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "t"), SCHEMA)
        .withPartitionSpec(PartitionSpec.unpartitioned())
        .create();
    GenericRecord r = GenericRecord.create(SCHEMA);
    r.setField("id", 1L);
    DataFile file = TableWrites.writeData(table, List.<Record>of(r)).get(0);
    table.newAppend().appendFile(file).commit();
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, List.<Record>of(r)).get(0))
        .commit();
    assertThat(Spellings.conflicts(table, 5)).isEmpty();

    String other = file.location().startsWith("file:")
        ? file.location().substring("file:".length())
        : "file:" + file.location();
    table
        .newAppend()
        .appendFile(DataFiles.builder(table.spec()).copy(file).withPath(other).build())
        .commit();

    assertThat(Spellings.conflicts(table, 5)).hasSize(1).first().asString().contains(other);
    catalog.close();
  }
}
