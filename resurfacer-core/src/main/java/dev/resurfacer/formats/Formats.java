package dev.resurfacer.formats;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.dispatch.TableLookup;
import dev.resurfacer.dispatch.Target;
import dev.resurfacer.maintain.Resurfacer;
import java.nio.file.Path;
import java.util.ServiceLoader;

/** The formats on the classpath, by their {@link FormatFactory}. */
public final class Formats {
  private Formats() {}

  /** Opens {@code catalog} with the factory of its format ({@link Format#of}). */
  public static Resurfacer<?> connect(CatalogConfig catalog, Path workingDir) {
    return factory(Format.of(catalog)).open(catalog, workingDir);
  }

  /**
   * The table {@code lookup} names, by {@link Format}'s rule: a Delta table when a delta catalog maps the
   * name or the location holds a {@code _delta_log}, otherwise a table of the chosen (Iceberg) catalog.
   */
  public static Target<?> resolve(TableLookup lookup) {
    return resolve(lookup, java.util.List.of());
  }

  /**
   * As {@link #resolve(TableLookup)}, asking the formats in {@code first} before the others: a verb that
   * only they have takes a name one of them holds as that table (an Iceberg-only verb asks the chosen
   * catalog even for a name a delta catalog maps, and so answers a Delta table in that catalog's words).
   */
  public static Target<?> resolve(TableLookup lookup, java.util.List<Format> first) {
    java.util.List<Format> order = new java.util.ArrayList<>(
        RESOLUTION_ORDER.stream().filter(first::contains).toList());
    RESOLUTION_ORDER.stream().filter(f -> !first.contains(f)).forEach(order::add);
    for (Format format : order) {
      for (FormatFactory f :
          ServiceLoader.load(FormatFactory.class, Formats.class.getClassLoader())) {
        if (f.format() == format) {
          java.util.Optional<Target<?>> found = f.find(lookup);
          if (found.isPresent()) {
            return found.get();
          }
        }
      }
    }
    throw new IllegalStateException("no format claims " + lookup.target());
  }

  /** Delta tables are recognised by name or by their log; an Iceberg table is whatever the chosen catalog is asked for. */
  private static final java.util.List<Format> RESOLUTION_ORDER =
      java.util.List.of(Format.DELTA, Format.ICEBERG);

  public static FormatFactory factory(Format format) {
    for (FormatFactory f :
        ServiceLoader.load(FormatFactory.class, Formats.class.getClassLoader())) {
      if (f.format() == format) {
        return f;
      }
    }
    throw new IllegalStateException("no " + format.id() + " support on the classpath (resurfacer-"
        + format.id() + " is missing)");
  }
}
