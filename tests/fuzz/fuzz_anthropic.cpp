// libFuzzer harness: the Anthropic Messages adapter (models/import/formats/anthropicmessages.h), on any JSON
// value it recognises, then the conversation read into a ticket's events. Its own corpus, so the fuzzer
// learns this format's shape rather than the dispatch's.

#include "fuzzinput.h"
#include "import/formats/anthropicmessages.h"
#include "import/transcriptformat.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return verity::fuzz::runAdapter(data, size, verity::looksLikeAnthropicMessages,
                                    verity::readAnthropicMessages, verity::formats::anthropic);
}
