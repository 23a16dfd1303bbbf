package dev.resurfacer.iceberg.testing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.io.InputFile;

/**
 * The default ResolvingFileIO that also remembers every location opened for reading, so a test can
 * show that table files were fetched through Iceberg's FileIO (and so staged) rather than by DuckDB.
 * Use as {@code io-impl}.
 */
public class RecordingFileIO extends dev.resurfacer.iceberg.storage.StorageFileIO {
  private static final Set<String> OPENED = ConcurrentHashMap.newKeySet();

  public static Set<String> opened() {
    return Set.copyOf(OPENED);
  }

  public static void reset() {
    OPENED.clear();
  }

  @Override
  public InputFile newInputFile(String location) {
    OPENED.add(location);
    return super.newInputFile(location);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    OPENED.add(location);
    return super.newInputFile(location, length);
  }
}
