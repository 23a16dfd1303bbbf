package dev.resurfacer.content;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The CPU time content verification's reads take, summed over the threads they run on: what a user
 * weighs against verifying by row count alone. Measured by the JVM's clock of each reading thread,
 * so the work of other threads running beside it (the runner's, the JIT's) is not in it. Nothing is
 * added where the JVM cannot tell a thread's CPU time. Safe to share between threads.
 */
public final class VerificationCpu {
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final LongAdder nanos = new LongAdder();

  /** {@code read}'s result, the CPU time it took on this thread added to the sum. */
  public <T> T measure(Supplier<T> read) {
    long before = threads.getCurrentThreadCpuTime();
    try {
      return read.get();
    } finally {
      long after = threads.getCurrentThreadCpuTime();
      if (before >= 0 && after >= before) {
        nanos.add(after - before);
      }
    }
  }

  /** The sum so far, in nanoseconds; 0 when nothing was measured. */
  public long nanos() {
    return nanos.sum();
  }
}
