// libFuzzer harness: one JSON value through the format dispatch (models/import/transcriptformat.h)
// and every adapter it picks, then each conversation read into a ticket's events, as the reader
// does with each line or element of a transcript.

#include "fuzzinput.h"
#include "import/conversationevents.h"
#include "import/transcriptformat.h"

#include <cstddef>
#include <cstdint>

using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::optional<json> input = verity::fuzz::parsedInput(data, size);
    if (!input)
        return 0;
    const json &value = *input;
    verity::ConversationContext context{QStringLiteral("fuzz"), 0, QString()};
    for (const verity::ReadConversation &read : verity::conversationsIn(value, context)) {
        if (read.conversation)
            (void)verity::conversationUnit(*read.conversation, read.format, 0);
    }
    return 0;
}
