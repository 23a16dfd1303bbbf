package dev.resurfacer.delta.kernel;

import io.delta.kernel.utils.CloseableIterator;
import java.util.Iterator;
import java.util.List;

/** Hands a list to Kernel APIs that take a {@link CloseableIterator}. */
public final class KernelIterators {
  private KernelIterators() {}

  public static <T> CloseableIterator<T> of(List<T> items) {
    Iterator<T> it = List.copyOf(items).iterator();
    return new CloseableIterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public T next() {
        return it.next();
      }

      @Override
      public void close() {}
    };
  }
}
