package dev.resurfacer.dispatch;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.storage.StorageFences;
import java.nio.file.Path;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What a command names and where to look it up.
 *
 * @param target the TABLE argument: {@code namespace.table}, a name a delta catalog maps, or a location
 * @param config the configuration file's contents (every catalog, every engine)
 * @param chosenCatalog the catalog the flags or environment choose; throws a usage error when none can be chosen
 * @param workingDir what relative locations are resolved against
 * @param fences what a destructive step must respect beside the table: given the catalog holding it
 *     (null when the flags choose none), every configured catalog's tables and the files no run may delete
 */
public record TableLookup(
    String target,
    ResurfacerConfig config,
    Supplier<CatalogConfig> chosenCatalog,
    Path workingDir,
    Function<CatalogConfig, StorageFences> fences) {}
