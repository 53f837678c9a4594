// Placeholder until the fetch lands.
#include "statementfetch.h"

namespace verity {

struct StatementFetch::Private
{
    StatementAnswer answer;
};

StatementFetch::StatementFetch(ProviderSettings, Period, QStringList, QObject *parent)
    : QObject(parent), d(std::make_unique<Private>())
{
}
StatementFetch::~StatementFetch() = default;
void StatementFetch::start() {}
void StatementFetch::cancel() {}
bool StatementFetch::isFinished() const { return true; }
const StatementAnswer &StatementFetch::answer() const { return d->answer; }
StatementAnswer StatementFetch::run(const ProviderSettings &, const Period &, const QStringList &) { return {}; }

} // namespace verity
