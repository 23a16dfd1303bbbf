package dev.resurfacer.iceberg.maintain;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.formats.Format;
import dev.resurfacer.formats.FormatFactory;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.maintain.Resurfacer;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.storage.StorageFences;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.apache.iceberg.catalog.Catalog;

/** Iceberg's factory for the generic {@link Resurfacer}: the tables of one Iceberg catalog. */
public final class IcebergResurfacer implements FormatFactory {
  /** Opens the catalog; orphan removal checks every table of its database (every catalog name of a JDBC one). */
  public static Resurfacer<IcebergTable> connect(CatalogConfig config) {
    return connect(Catalogs.open(config)).fences(StorageFences.forCatalogs(List.of(config), null));
  }

  /**
   * Uses a catalog you already opened; {@link Resurfacer#close()} closes it. Orphan removal checks the
   * tables this catalog lists; give {@link Resurfacer#fences} to check more.
   */
  public static Resurfacer<IcebergTable> connect(Catalog catalog) {
    return Resurfacer.over(new IcebergFormat(catalog, Clock.systemUTC(), null, Progress.NONE));
  }

  @Override
  public Format format() {
    return Format.ICEBERG;
  }

  /** Anything no other format claims is a table of the chosen catalog (opening it says whether it exists). */
  @Override
  public java.util.Optional<dev.resurfacer.dispatch.Target<?>> find(
      dev.resurfacer.dispatch.TableLookup lookup) {
    return java.util.Optional.of(new IcebergTarget(lookup));
  }

  @Override
  public Resurfacer<?> open(CatalogConfig catalog, Path workingDir) {
    return connect(catalog);
  }
}
