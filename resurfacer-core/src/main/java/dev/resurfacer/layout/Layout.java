package dev.resurfacer.layout;

import java.util.List;

/** A row order compaction can write: the three strategies of {@code compact --strategy}. */
public sealed interface Layout {
  record BinPack() implements Layout {}

  record Sort(List<String> columns) implements Layout {
    public Sort {
      columns = List.copyOf(columns);
    }
  }

  record ZOrder(List<String> columns) implements Layout {
    public ZOrder {
      columns = List.copyOf(columns);
    }
  }

  /** {@code binpack}, {@code sort} or {@code zorder}, as {@code compact.strategy} spells it. */
  default String strategy() {
    return this instanceof Sort ? "sort" : this instanceof ZOrder ? "zorder" : "binpack";
  }

  /** The {@code sort-by} list or the {@code zorder-columns}, comma-separated; null for bin-pack. */
  default String orderBy() {
    if (this instanceof Sort s) {
      return String.join(", ", s.columns());
    }
    return this instanceof ZOrder z ? String.join(",", z.columns()) : null;
  }

  default String describe() {
    if (this instanceof Sort s) {
      return "sort by " + String.join(", ", s.columns());
    }
    return this instanceof ZOrder z
        ? "z-order (" + String.join(", ", z.columns()) + ")"
        : "bin-pack";
  }
}
