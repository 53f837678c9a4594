#pragma once
// Every colour the console shows, in one place: the outcomes' (in every view, the chart
// included: performed green, unknown amber, a duplicate effect red), finance's, and the
// neutral greys of text, cards and borders. Item models colour cells from it; the widgets take
// it through the theme (ui/theme.h). A colour never stands alone: words or an icon say the same.

namespace verity {

namespace palette {
// ---- outcomes ----
inline constexpr const char *performed = "#135c2b";
inline constexpr const char *performedBackground = "#e6f4ea";
inline constexpr const char *alreadyPerformed = "#174e97";
inline constexpr const char *alreadyPerformedBackground = "#e8f0fe";
inline constexpr const char *notPerformed = "#3c4043";
inline constexpr const char *notPerformedBackground = "#ecedef";
inline constexpr const char *unknown = "#8a4b00";
inline constexpr const char *unknownBackground = "#fff4e5";
inline constexpr const char *unknownBorder = "#e37400";
inline constexpr const char *duplicate = "#9c1c14";
inline constexpr const char *duplicateBackground = "#fce8e6";
inline constexpr const char *duplicateBorder = "#d93025";
inline constexpr const char *unsettled = "#7a2e80"; // a repeat not yet known to be harmless
inline constexpr const char *retry = "#454a75"; // a retry after an error
inline constexpr const char *noWrites = "#5f6368";
inline constexpr const char *noWritesBackground = "#f1f3f4";

// ---- neutrals ----
inline constexpr const char *text = "#3c4043";
inline constexpr const char *mutedText = "#5f6368";
inline constexpr const char *border = "#c4c9cf";
inline constexpr const char *lightBorder = "#d0d4d9";
inline constexpr const char *surface = "#ffffff"; // a card
inline constexpr const char *page = "#eef0f3"; // what the cards lie on
inline constexpr const char *quietBackground = "#f1f3f4"; // a harmless note
inline constexpr const char *codeBackground = "#f8f9fa"; // arguments and results
inline constexpr const char *focus = "#1a73e8"; // the card a link or the queue points at
inline constexpr const char *chartAxis = "#808080";

// ---- messages, by who wrote them ----
inline constexpr const char *agentNoteBackground = "#f6f7f9";
inline constexpr const char *systemBackground = "#fff8e1";
inline constexpr const char *systemBorder = "#e6d38a";
inline constexpr const char *replyBackground = "#eef4ff";
inline constexpr const char *replyBorder = "#a9c1ea";
} // namespace palette

// Finance's colours: money owed or at risk (a duplicate's red), money settled (performed's
// green), money waiting on someone (unknown's amber).
inline constexpr const char *negativeMoneyColor = palette::duplicate;
inline constexpr const char *settledMoneyColor = palette::performed;
inline constexpr const char *pendingMoneyColor = palette::unknown;

} // namespace verity
