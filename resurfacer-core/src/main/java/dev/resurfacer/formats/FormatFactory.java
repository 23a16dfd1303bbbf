package dev.resurfacer.formats;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.dispatch.TableLookup;
import dev.resurfacer.dispatch.Target;
import dev.resurfacer.maintain.Resurfacer;
import java.nio.file.Path;

/**
 * How a format opens one configured catalog of its tables; each format module supplies one, found with
 * {@link java.util.ServiceLoader} ({@code META-INF/services/dev.resurfacer.formats.FormatFactory}).
 */
public interface FormatFactory {
  Format format();

  /**
   * @param workingDir what relative table locations are resolved against
   * @return the catalog's tables behind the generic entry point, fenced by this catalog alone
   *     (give {@link Resurfacer#fences} to respect every configured catalog)
   */
  Resurfacer<?> open(CatalogConfig catalog, Path workingDir);

  /**
   * The table {@code lookup} names if it is one of this format's, by {@link Format}'s rule; empty
   * when it names none. Opening it may wait until {@link Target#open()}.
   */
  java.util.Optional<Target<?>> find(TableLookup lookup);
}
