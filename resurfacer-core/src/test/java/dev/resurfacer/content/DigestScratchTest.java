package dev.resurfacer.content;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A pool lends each scratch to one digest at a time and lends it again once given back. */
class DigestScratchTest {
  @Test
  void aGivenBackScratchIsLentAgainAndTwoDigestsAtOnceGetTwo() {
    try (DigestScratch.Pool pool = new DigestScratch.Pool(() -> null)) {
      DigestScratch first = pool.borrow();
      DigestScratch second = pool.borrow();
      assertThat(second).isNotSameAs(first);
      pool.giveBack(first);
      assertThat(pool.borrow()).isSameAs(first);
      pool.giveBack(second);
      pool.giveBack(first);
      // the last given back first: its arrays are the warmest
      assertThat(pool.borrow()).isSameAs(first);
      assertThat(pool.borrow()).isSameAs(second);
      assertThat(pool.borrow()).isNotIn(first, second);
    }
  }

  @Test
  void aScratchKeepsItsArraysAndRemakesTheBlockForAnotherWidth() {
    try (DigestScratch scratch = new DigestScratch(() -> null)) {
      PageHashes.Buffers third = scratch.column(2);
      assertThat(scratch.column(2)).isSameAs(third);
      assertThat(scratch.column(0)).isNotSameAs(third);
      RowBlock block = scratch.block(3);
      assertThat(block.columns()).isEqualTo(3);
      assertThat(block.capacity()).isEqualTo(ParquetRows.BLOCK);
      assertThat(scratch.block(3)).isSameAs(block);
      assertThat(scratch.block(5).columns()).isEqualTo(5);
      assertThat(scratch.pages().chunkBuffers()).isSameAs(scratch.pages().chunkBuffers());
    }
  }
}
