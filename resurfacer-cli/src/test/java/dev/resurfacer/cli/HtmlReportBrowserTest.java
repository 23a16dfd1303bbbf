package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opens a real maintain report in headless Chromium and checks the screenshot: the bars of the
 * before (purple) and after (green) histograms must be painted. On CI ({@code CI=true}, set by
 * {@code .ci/run}, which installs Debian's chromium) a missing browser fails the test; elsewhere it is skipped.
 */
class HtmlReportBrowserTest {
  private static final int BEFORE = 0x8250df;
  private static final int AFTER = 0x1a7f37;

  @TempDir
  Path dir;

  @Test
  void theChartsRenderInHeadlessChromium() throws Exception {
    String browser = browser();
    if (browser == null) {
      assertThat(System.getenv("CI"))
          .as("CI must have chromium (installed by .ci/run)")
          .isNotEqualTo("true");
      Assumptions.abort("chromium is not installed");
    }
    Path lake = dir.resolve("lake");
    try (JdbcCatalog catalog = SqliteCatalogs.create("lake", lake)) {
      Fleet.smallFiles(catalog, "raw", "clicks", 6);
    }
    Files.writeString(dir.resolve("resurfacer.yml"), """
        catalogs:
          lake: {type: jdbc, uri: "%s", warehouse: "%s"}
        defaults:
          compact: {min-input-files: 2}
          remove-orphans: {enabled: false}
        """.formatted(
            SqliteCatalogs.uri(lake), SqliteCatalogs.warehouse(lake)));
    CliRun run = CliRun.run(dir, "maintain", "--yes", "--report", "report.html");
    assertThat(run.exitCode()).as(run.err()).isZero();

    Path shot = dir.resolve("shot.png");
    Process p = new ProcessBuilder(
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--window-size=1100,900",
            "--user-data-dir=" + dir.resolve("profile"),
            "--screenshot=" + shot,
            dir.resolve("report.html").toUri().toString())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("chromium.log").toFile())
        .start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("chromium finished").isTrue();
    assertThat(shot).as(Files.readString(dir.resolve("chromium.log"))).exists();

    BufferedImage image = ImageIO.read(shot.toFile());
    // a bar is thousands of pixels of exactly its fill; text in the same colour is a few dozen
    assertThat(pixels(image, BEFORE)).as("before-histogram bars").isGreaterThan(1000);
    assertThat(pixels(image, AFTER)).as("after-histogram bars").isGreaterThan(500);
  }

  private static long pixels(BufferedImage image, int rgb) {
    long n = 0;
    for (int y = 0; y < image.getHeight(); y++) {
      for (int x = 0; x < image.getWidth(); x++) {
        if ((image.getRGB(x, y) & 0xffffff) == rgb) {
          n++;
        }
      }
    }
    return n;
  }

  private static String browser() {
    for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
      for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
        if (Files.isExecutable(Path.of(d, name))) {
          return Path.of(d, name).toString();
        }
      }
    }
    return null;
  }
}
