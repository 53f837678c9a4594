#include "sqlwords.h"

#include "domain/outcome.h"
#include "domain/settlement.h"
#include "domain/toolclass.h"
#include "records.h"

#include <QRegularExpression>
#include <QStringList>

#include <iterator>
#include <optional>

namespace verity {

namespace {

bool knownWord(QStringView kind, QStringView word)
{
    if (kind == u"outcome")
        return outcomeFromId(word).has_value();
    if (kind == u"resolution")
        return resolutionFromId(word).has_value();
    if (kind == u"basis")
        return settlementBasisFromId(word).has_value();
    if (kind == u"class")
        return toolClassFromId(word).has_value();
    if (kind == u"state")
        return escalationStateId(escalationStateFromId(word)) == word;
    return false;
}

QString quoted(const QString &word)
{
    return u'\'' + word + u'\'';
}

} // namespace

QString withStoredWords(const QString &sql)
{
    static const QRegularExpression token(
            QStringLiteral("\\{(outcome|resolution|basis|class|state):([a-z_]+)\\}"));
    QString written;
    qsizetype from = 0;
    for (QRegularExpressionMatchIterator it = token.globalMatch(sql); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        if (!knownWord(match.capturedView(1), match.capturedView(2)))
            qFatal("A statement names the stored word %s, which the domain does not know",
                   qPrintable(match.captured(0)));
        written += QStringView(sql).mid(from, match.capturedStart(0) - from);
        written += quoted(match.captured(2));
        from = match.capturedEnd(0);
    }
    written += QStringView(sql).mid(from);
    return written;
}

QString countedPayoutCondition(const QString &outcome, const QString &resolution, const QString &basis,
                               std::optional<PayoutEffect> only)
{
    // Each settlement the rule counts, for each outcome it is asked about; a dimension the rule
    // does not look at in a case is left out of that case's condition.
    const Outcome reported[] = {Outcome::Performed, Outcome::Unknown};
    const std::optional<Resolution> resolutions[] = {std::nullopt, Resolution::Performed,
                                                     Resolution::NotPerformed};
    const std::optional<SettlementBasis> bases[] = {std::nullopt, SettlementBasis::Lookup,
                                                    SettlementBasis::Attestation,
                                                    SettlementBasis::Reconciliation};
    const auto equals = [](const QString &column, const std::optional<QString> &word) {
        return word ? QStringLiteral("%1 = %2").arg(column, quoted(*word))
                    : column + QStringLiteral(" IS NULL");
    };
    const auto counted = [only](Outcome o, const std::optional<Resolution> &r,
                                const std::optional<SettlementBasis> &b) {
        const std::optional<PayoutEffect> effect = payoutStanding(o, r, b).effect;
        return effect && (!only || *effect == *only);
    };
    QStringList cases;
    for (const std::optional<Resolution> &r : resolutions) {
        const std::optional<QString> resolutionWord = r ? std::optional(resolutionId(*r)) : std::nullopt;
        bool everyCase = true;
        QStringList narrower;
        for (const std::optional<SettlementBasis> &b : bases) {
            const std::optional<QString> basisWord = b ? std::optional(settlementBasisId(*b)) : std::nullopt;
            const QString settled =
                    QStringLiteral("%1 AND %2")
                            .arg(equals(resolution, resolutionWord), equals(basis, basisWord));
            QStringList outcomes;
            for (Outcome o : reported) {
                if (counted(o, r, b))
                    outcomes << quoted(outcomeId(o));
            }
            if (outcomes.size() < qsizetype(std::size(reported)))
                everyCase = false;
            if (outcomes.size() == qsizetype(std::size(reported)))
                narrower << u'(' + settled + u')';
            else if (!outcomes.isEmpty())
                narrower << QStringLiteral("(%1 AND %2 IN (%3))").arg(settled, outcome, outcomes.join(u", "));
        }
        if (everyCase)
            cases << equals(resolution, resolutionWord);
        else
            cases << narrower;
    }
    return cases.isEmpty() ? QStringLiteral("FALSE") : u'(' + cases.join(QStringLiteral(" OR ")) + u')';
}

} // namespace verity
