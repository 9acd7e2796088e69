/**
 * Test setup of every project: plugs in the embedded engine, as the local runtime's entry points do, so tests
 * can run handlers and the local stack with `SEARCH_ENGINE=embedded`.
 */
import '../../local/search/use-embedded-engine';
