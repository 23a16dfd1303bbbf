package dev.resurfacer.formats;

import dev.resurfacer.config.CatalogConfig;
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

  public static FormatFactory factory(Format format) {
    for (FormatFactory f : ServiceLoader.load(FormatFactory.class, Formats.class.getClassLoader())) {
      if (f.format() == format) {
        return f;
      }
    }
    throw new IllegalStateException("no " + format.id() + " support on the classpath (resurfacer-" + format.id() + " is missing)");
  }
}
