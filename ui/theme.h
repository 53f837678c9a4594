#pragma once
// Verity's look in one place: the metrics the cards share and the style sheets widgets wear,
// built from the palette (itemmodels/palette.h). A widget asks for a role (a muted caption, a
// warning status, a customer's message card), never spells a colour or a size.

#include "store/records.h"

#include <QColor>
#include <QMargins>
#include <QString>

namespace verity::theme {

// ---- metrics ----
inline constexpr int cardRadius = 6;
inline constexpr QMargins cardMargins{10, 8, 10, 10};
inline constexpr QMargins messageMargins{10, 6, 10, 8};
inline constexpr int cardSpacing = 4;
inline constexpr int transcriptSpacing = 8; // between cards, and around them

// ---- text inside a card (no border of its own) ----
enum class Text {
    Body, // the reading colour
    Muted, // times, previews, what is only context
    Caption, // a small bold heading: ARGUMENTS, RESULT
    Author, // who wrote a message
    ToolName, // a call's title
    Warning, // words about something not known
};
QString label(Text role);
// A message's own text: an agent's note to itself in italics.
QString messageText(bool agentNote);

// ---- a status line: the words carry the verdict, the colour repeats it ----
enum class Tone { Neutral, Good, Bad, Warning };
QString status(Tone tone, bool bold = true);
// The tone's colour, for text a view paints itself.
QColor toneColour(Tone tone);
// A link in a status bar or a headline, in the tone's colour and bold: rich text, so `text` is
// escaped here.
QString statusLink(const QString &href, const QString &text, Tone tone);
// The band across the top of the window while a live key is in use: white on red, bold.
QString liveAccount();

// ---- a band across a card that says what is known of a call ----
enum class Band { Unknown, Duplicate, Performed, NotPerformed, Attested, Harmless };
QString band(Band kind);
// The band of an escalation's standing in the evidence window: open (amber) or settled.
QString standing(bool open);

// ---- cards and what they lie on ----
QString messageCard(MessageKind kind);
// `selector`: the card's class as a style-sheet selector ("verity--ToolCallCard").
QString callCard(const QString &selector, bool highlighted, bool dangerous);
QString classBadge(); // "Write: money", outlined
QString codeBlock(); // arguments and results
QString codeField(); // a key in a read-only line of its own
// A queue's table with the keyboard's focus: framed in the focus colour, so a person sees where
// their keys go before any row is current.
QString focusedTable(const QString &selector);
QString transcriptPage(const QString &objectName);

} // namespace verity::theme
