// The syntax of the nn language (shared/spec/language.md §1-§4): a Python
// subset. The front end (frontend/ast_builder.cpp) turns this parse tree into
// the project's own AST; nothing past frontend/ sees these rule contexts.
parser grammar NNParser;

options { tokenVocab = NNLexer; }

file_input : ( NEWLINE | stmt )* EOF ;

// One expression on its own: used for the replacement fields of f-strings.
eval_input : testlist NEWLINE* EOF ;

stmt : simple_stmts | compound_stmt ;

simple_stmts : simple_stmt ( SEMI simple_stmt )* SEMI? NEWLINE ;

simple_stmt
  : expr_stmt
  | PASS
  | BREAK
  | CONTINUE
  | RETURN testlist?
  | RAISE test?
  | GLOBAL NAME ( COMMA NAME )*
  | NONLOCAL NAME ( COMMA NAME )*
  | ASSERT test ( COMMA test )?
  | DEL exprlist
  | import_stmt
  ;

// a = b = value; a += value; a: T = value; a bare expression. The first
// list is shared (as Python's grammar writes it), so that the token after
// it decides the form: with one alternative per form, the parser had to
// look ahead past the whole first list to choose, which takes time
// quadratic in its nesting (a bare call of a deeply nested expression).
expr_stmt : testlist_star ( annassign | augassign testlist | ( ASSIGN testlist_star )* ) ;
annassign : COLON test ( ASSIGN testlist )? ;
augassign
  : ADD_ASSIGN | SUB_ASSIGN | MUL_ASSIGN | DIV_ASSIGN | MOD_ASSIGN | AT_ASSIGN
  | POWER_ASSIGN | FLOORDIV_ASSIGN | AND_ASSIGN | OR_ASSIGN | XOR_ASSIGN
  | LSHIFT_ASSIGN | RSHIFT_ASSIGN
  ;
testlist_star : ( test | star_expr ) ( COMMA ( test | star_expr ) )* COMMA? ;

import_stmt
  : IMPORT dotted_as_name ( COMMA dotted_as_name )*
  | FROM dotted_name IMPORT ( STAR | import_as_name ( COMMA import_as_name )*
                            | LPAREN import_as_name ( COMMA import_as_name )* COMMA? RPAREN )
  ;
dotted_as_name : dotted_name ( AS NAME )? ;
import_as_name : NAME ( AS NAME )? ;
dotted_name : NAME ( DOT NAME )* ;

compound_stmt
  : if_stmt | while_stmt | for_stmt | funcdef | decorated | with_stmt
  | class_stmt | try_stmt
  ;

if_stmt : IF namedexpr_test COLON block ( ELIF namedexpr_test COLON block )* ( ELSE COLON block )? ;
while_stmt : WHILE namedexpr_test COLON block ( ELSE COLON block )? ;
for_stmt : FOR exprlist IN testlist COLON block ( ELSE COLON block )? ;
with_stmt : WITH with_item ( COMMA with_item )* COLON block ;
with_item : test ( AS expr )? ;

// Parsed so that it can be rejected with a clear message.
class_stmt : CLASS NAME ( LPAREN arglist? RPAREN )? COLON block ;

try_stmt
  : TRY COLON block ( except_clause COLON block )+ ( ELSE COLON block )? ( FINALLY COLON block )?
  | TRY COLON block FINALLY COLON block
  ;
except_clause : EXCEPT ( test ( AS NAME )? )? ;

decorated : decorator+ funcdef ;
decorator : AT dotted_name ( LPAREN arglist? RPAREN )? NEWLINE ;

funcdef : DEF NAME LPAREN parameters? RPAREN ( ARROW test )? COLON block ;
parameters : parameter ( COMMA parameter )* COMMA? ;
parameter
  : NAME ( COLON test )? ( ASSIGN test )?
  | STAR NAME?
  | POWER NAME
  ;

block : simple_stmts | NEWLINE INDENT stmt+ DEDENT ;

// Expressions, lowest precedence first. `name := value` (an assignment
// expression) stands where Python allows it without parentheses: as an
// if/elif/while condition, a call's argument, an item of a display, and
// inside parentheses.
namedexpr_test : NAME WALRUS test | test ;
test : or_test ( IF or_test ELSE test )? | lambdef ;
test_nocond : or_test | lambdef_nocond ;
lambdef : LAMBDA lambda_params? COLON test ;
lambdef_nocond : LAMBDA lambda_params? COLON test_nocond ;
lambda_params : lambda_param ( COMMA lambda_param )* COMMA? ;
lambda_param : NAME ( ASSIGN test )? | STAR NAME? | POWER NAME ;

or_test : and_test ( OR and_test )* ;
and_test : not_test ( AND not_test )* ;
not_test : NOT not_test | comparison ;
comparison : expr ( comp_op expr )* ;
comp_op : LT | GT | EQ | GE | LE | NE | IN | NOT IN | IS | IS NOT ;
star_expr : STAR expr ;

expr : xor_expr ( PIPE xor_expr )* ;
xor_expr : and_expr ( CARET and_expr )* ;
and_expr : shift_expr ( AMP shift_expr )* ;
shift_expr : arith_expr ( ( LSHIFT | RSHIFT ) arith_expr )* ;
arith_expr : term ( ( PLUS | MINUS ) term )* ;
term : factor ( ( STAR | SLASH | PERCENT | FLOORDIV | AT ) factor )* ;
factor : ( PLUS | MINUS | TILDE ) factor | power ;
power : atom_expr ( POWER factor )? ;
atom_expr : atom trailer* ;

atom
  : LPAREN ( testlist_comp )? RPAREN
  | LBRACK ( testlist_comp )? RBRACK
  | LBRACE ( dictorsetmaker )? RBRACE
  | NAME
  | number
  | STRING+
  | ELLIPSIS
  | NONE
  | TRUE
  | FALSE
  ;
number : INT_NUMBER | FLOAT_NUMBER | HEX_NUMBER | BIN_NUMBER | OCT_NUMBER ;

testlist_comp : ( namedexpr_test | star_expr ) ( comp_for | ( COMMA ( namedexpr_test | star_expr ) )* COMMA? ) ;

trailer
  : LPAREN arglist? RPAREN
  | LBRACK subscriptlist RBRACK
  | DOT NAME
  ;
subscriptlist : subscript ( COMMA subscript )* COMMA? ;
// (A leading test shared by both forms, as in expr_stmt.)
subscript : test ( COLON test? sliceop? )? | COLON test? sliceop? ;
sliceop : COLON test? ;

exprlist : ( expr | star_expr ) ( COMMA ( expr | star_expr ) )* COMMA? ;
testlist : test ( COMMA test )* COMMA? ;

// A dict's entries, or a set's items (entries without a value, which the
// front end refuses): one rule for both, so that the token after the first
// key decides, as in expr_stmt.
dictorsetmaker : dictentry ( comp_for | ( COMMA dictentry )* COMMA? ) ;
// key: value, **mapping (its items, in its order), or a set's item.
dictentry : test ( COLON test )? | POWER expr ;

arglist : argument ( COMMA argument )* COMMA? ;
argument
  : namedexpr_test comp_for?
  | NAME ASSIGN test
  | POWER test
  | STAR test
  ;

comp_for : FOR exprlist IN or_test comp_iter? ;
comp_iter : comp_for | comp_if ;
comp_if : IF test_nocond comp_iter? ;
