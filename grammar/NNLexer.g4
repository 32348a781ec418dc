// The tokens of the nn language. Indentation is turned into INDENT/DEDENT
// tokens the way Python's tokenizer does it: the NEWLINE rule swallows the
// next line's leading whitespace, and nextToken() compares that against a
// stack of indentation strings. Newlines inside brackets are dropped (implicit
// line joining). The indentation logic lives in frontend/indent_lexer.cpp;
// this file only declares the hooks so the grammar stays the single source of
// the syntax.
lexer grammar NNLexer;

tokens { INDENT, DEDENT }

@header {
#include "frontend/indent_state.h"
}

@members {
public:
  nn::frontend::IndentState indent;
  std::unique_ptr<antlr4::Token> nextToken() override {
    return indent.next(*this, [this] { return antlr4::Lexer::nextToken(); });
  }
}

// Keywords
DEF      : 'def';
RETURN   : 'return';
IF       : 'if';
ELIF     : 'elif';
ELSE     : 'else';
WHILE    : 'while';
FOR      : 'for';
IN       : 'in';
IS       : 'is';
BREAK    : 'break';
CONTINUE : 'continue';
PASS     : 'pass';
IMPORT   : 'import';
FROM     : 'from';
AS       : 'as';
GLOBAL   : 'global';
NONLOCAL : 'nonlocal';
WITH     : 'with';
ASSERT   : 'assert';
RAISE    : 'raise';
LAMBDA   : 'lambda';
AND      : 'and';
OR       : 'or';
NOT      : 'not';
NONE     : 'None';
TRUE     : 'True';
FALSE    : 'False';
CLASS    : 'class';
TRY      : 'try';
EXCEPT   : 'except';
FINALLY  : 'finally';
DEL      : 'del';
YIELD    : 'yield';

NEWLINE : ( '\r'? '\n' | '\r' ) [ \t\f]* ;

NAME : [a-zA-Z_] [a-zA-Z_0-9]* ;

FLOAT_NUMBER
  : DIGITS '.' DIGITS? EXPONENT?
  | '.' DIGITS EXPONENT?
  | DIGITS EXPONENT
  ;
HEX_NUMBER : '0' [xX] [0-9a-fA-F] ( '_'? [0-9a-fA-F] )* ;
BIN_NUMBER : '0' [bB] [01] ( '_'? [01] )* ;
OCT_NUMBER : '0' [oO] [0-7] ( '_'? [0-7] )* ;
INT_NUMBER : DIGITS ;

// A string literal with an optional prefix (r, f, b and their combinations).
// Escapes and f-string replacement fields are decoded by the front end.
STRING
  : STRING_PREFIX? ( '\'\'\'' LONG_SQ_ITEM*? '\'\'\'' | '"""' LONG_DQ_ITEM*? '"""'
                   | '\'' ( ~[\\\r\n'] | '\\' . )* '\'' | '"' ( ~[\\\r\n"] | '\\' . )* '"' )
  ;
// A quote that never closes on its line; reported as "unterminated string".
UNTERMINATED_STRING
  : STRING_PREFIX? ( '\'' ( ~[\\\r\n'] | '\\' . )* | '"' ( ~[\\\r\n"] | '\\' . )* )
  ;

LPAREN : '(' { indent.openBracket(); } ;
RPAREN : ')' { indent.closeBracket(); } ;
LBRACK : '[' { indent.openBracket(); } ;
RBRACK : ']' { indent.closeBracket(); } ;
LBRACE : '{' { indent.openBracket(); } ;
RBRACE : '}' { indent.closeBracket(); } ;

ELLIPSIS    : '...';
DOT         : '.';
COMMA       : ',';
WALRUS      : ':=';
COLON       : ':';
SEMI        : ';';
ARROW       : '->';
POWER_ASSIGN: '**=';
FLOORDIV_ASSIGN : '//=';
ADD_ASSIGN  : '+=';
SUB_ASSIGN  : '-=';
MUL_ASSIGN  : '*=';
DIV_ASSIGN  : '/=';
MOD_ASSIGN  : '%=';
AT_ASSIGN   : '@=';
AND_ASSIGN  : '&=';
OR_ASSIGN   : '|=';
XOR_ASSIGN  : '^=';
LSHIFT_ASSIGN : '<<=';
RSHIFT_ASSIGN : '>>=';
POWER       : '**';
FLOORDIV    : '//';
LSHIFT      : '<<';
RSHIFT      : '>>';
EQ          : '==';
NE          : '!=';
LE          : '<=';
GE          : '>=';
LT          : '<';
GT          : '>';
ASSIGN      : '=';
PLUS        : '+';
MINUS       : '-';
STAR        : '*';
SLASH       : '/';
PERCENT     : '%';
AT          : '@';
AMP         : '&';
PIPE        : '|';
CARET       : '^';
TILDE       : '~';

SKIP_WS      : [ \t\f]+ -> skip ;
COMMENT      : '#' ~[\r\n]* -> skip ;
LINE_JOIN    : '\\' [ \t]* ( '\r'? '\n' | '\r' ) -> skip ;

// Anything else is one bad character, reported by the front end.
ERROR_CHAR : . ;

fragment DIGITS : [0-9] ( '_'? [0-9] )* ;
fragment EXPONENT : [eE] [+-]? DIGITS ;
fragment STRING_PREFIX : [rRfFbB] | [rR][fFbB] | [fFbB][rR] ;
fragment LONG_SQ_ITEM : '\\' . | ~'\\' ;
fragment LONG_DQ_ITEM : '\\' . | ~'\\' ;
