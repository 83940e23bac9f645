package dev.periscope.browser.runtime;

import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.spi.ProviderElement;
import java.util.Map;

/** The newest observation of an environment with the provider elements behind its refs. */
record Refs(Observation observation, Map<String, ProviderElement> elementsByRef) {}
