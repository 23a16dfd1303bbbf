package dev.resurfacer.cli.demo;

import dev.resurfacer.iceberg.demo.ShopDemo;
import java.io.PrintWriter;

/** The maintenance the demo runs: whatever operations this build has. */
final class DemoMaintenance {
  private DemoMaintenance() {}

  static void run(ShopDemo demo, PrintWriter out) {
    out.println("compaction is not built yet on this version: nothing was changed (see docs/features.md)");
    out.flush();
  }
}
