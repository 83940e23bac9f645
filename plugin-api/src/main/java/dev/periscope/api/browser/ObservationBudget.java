package dev.periscope.api.browser;

import java.util.Set;

/**
 * How much an observation may carry across from the browser, and which element tiers it wants (1 to
 * 5; elements of other tiers are left out before the cut).
 */
public record ObservationBudget(int maxTextChars, int maxElements, Set<Integer> tiers) {
  public static final Set<Integer> ALL_TIERS = Set.of(1, 2, 3, 4, 5);

  public ObservationBudget {
    tiers = Set.copyOf(tiers);
  }

  public ObservationBudget(int maxTextChars, int maxElements) {
    this(maxTextChars, maxElements, ALL_TIERS);
  }
}
