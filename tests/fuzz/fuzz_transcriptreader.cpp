// libFuzzer harness: a whole transcript file through TranscriptReader
// (models/import/transcriptreader.h): format detection, JSON Lines or one document, streaming,
// every adapter and the events of each conversation. One temporary file, rewritten per input.

#include "import/transcriptreader.h"

#include <QTemporaryFile>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace {

QTemporaryFile *transcript = nullptr;

void removeTranscript()
{
    delete transcript; // removes the file when libFuzzer exits normally
    transcript = nullptr;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    transcript = new QTemporaryFile();
    if (!transcript->open())
        std::abort();
    std::atexit(removeTranscript);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const auto length = static_cast<qint64>(size);
    if (!transcript->resize(0) || !transcript->seek(0)
        || transcript->write(reinterpret_cast<const char *>(data), length) != length || !transcript->flush())
        std::abort();

    verity::TranscriptReader reader(transcript->fileName());
    qint64 units = 0;
    const verity::Expected<void> done = reader.read([&](verity::ImportUnit unit) {
        units += unit.events.size() + 1;
        return true;
    });
    (void)done;
    (void)units;
    return 0;
}
